/**
 * Edits a user-owned TypeScript file in place where the generator needs it, leaving every line the
 * user wrote as it is: adds what the planned version exports and the file lacks (a new operation's
 * hook, a member of test/support.ts the generated tests import) with the imports it needs, renames
 * a type the generated module now calls differently, and drops a2a's own empty hook stubs whose
 * operation is gone. When that is not enough without touching the user's code, it says what to
 * change instead. ts-morph parses both versions; the edits are plain text splices at its positions.
 * @module
 */
import { posix } from 'node:path'
import type { FunctionDeclaration, ImportDeclaration, Node, SourceFile } from 'ts-morph'

export interface UserEdits {
  /** The edited file; undefined when nothing needs to change. */
  content?: string
  /** What a2a changed, one short phrase each (`added beforeDelete`). */
  changes: string[]
  /** What is left for the user, because changing it would touch their code. */
  advice: string[]
}

interface Splice {
  start: number
  end: number
  text: string
}

const TOP_LEVEL = /^export (?:async )?(?:function|interface|type|const|let|class|enum) (\w+)/gm
const GENERATED_MODULE = /\.gen\.(m|c)?js$/

/**
 * A cheap look before loading the compiler: does `planned` export a name `current` lacks, or does
 * `current` import from a generated module a name `planned` no longer imports?
 */
export function mayNeedEdits(path: string, current: string, planned: string): boolean {
  if (!/\.(m|c)?tsx?$/.test(path)) return false
  const declared = (text: string) => new Set([...text.matchAll(TOP_LEVEL)].map((match) => match[1]!))
  const have = declared(current)
  if ([...declared(planned)].some((name) => !have.has(name))) return true
  const generatedImports = (text: string) =>
    new Set(
      [...text.matchAll(/import (?:type )?\{([^}]*)\} from ['"]([^'"]*)['"]/g)]
        .filter((match) => GENERATED_MODULE.test(match[2]!))
        .flatMap((match) =>
          match[1]!
            .split(',')
            .map((name) => name.trim().replace(/^type /, ''))
            .filter(Boolean),
        ),
    )
  const wanted = generatedImports(planned)
  return [...generatedImports(current)].some((name) => !wanted.has(name))
}

/** The planned text of an app file (`src/a2a/invoices.gen.ts`), to tell what a generated module exports. */
export type PlannedText = (path: string) => string | undefined

export async function userEdits(path: string, current: string, planned: string, plannedText: PlannedText = () => undefined): Promise<UserEdits> {
  const { Project, SyntaxKind } = await import('ts-morph')
  const project = new Project({ useInMemoryFileSystem: true, skipLoadingLibFiles: true })
  const mine = project.createSourceFile('/current.ts', current)
  const theirs = project.createSourceFile('/planned.ts', planned)
  const splices: Splice[] = []
  const changes: string[] = []
  const advice: string[] = []
  const declared = declaredNames(mine)
  const hooksFile = /(^|\/)hooks\//.test(path)

  // a2a's own empty stubs of hooks no longer called: removed (nothing of the user's is in them).
  const plannedFunctions = new Map(theirs.getFunctions().flatMap((fn) => (fn.getName() ? [[fn.getName()!, fn] as const] : [])))
  const removed: Splice[] = []
  for (const fn of mine.getFunctions()) {
    const name = fn.getName()
    if (!hooksFile || !name || !/^before[A-Z]/.test(name) || !fn.isExported() || plannedFunctions.has(name)) continue
    if (fn.getBody()?.getText().replace(/\s/g, '') === '{}') {
      removed.push(wholeStatement(mine, fn))
      changes.push(`removed the empty ${name} (its operation is gone)`)
    } else {
      advice.push(`remove ${name} when you no longer need it (no longer called: its operation is gone)`)
    }
  }
  splices.push(...removed)
  const inRemoved = (node: Node) => removed.some((cut) => node.getStart() >= cut.start && node.getEnd() <= cut.end)

  // Names imported from a generated module that it no longer exports: renamed when a function of
  // both versions shows what took their place, dropped when unused, else left to the user.
  const renames = new Map<string, string>()
  for (const declaration of mine.getImportDeclarations()) {
    const specifier = declaration.getModuleSpecifierValue()
    if (!GENERATED_MODULE.test(specifier)) continue
    const wanted = new Set(importedNames(theirs, specifier))
    const exported = exportsOf(plannedText(posix.join(posix.dirname(path), specifier).replace(/\.(m|c)?js$/, (ext) => ext.replace('js', 'ts'))))
    for (const named of declaration.getNamedImports()) {
      const name = named.getName()
      if (wanted.has(name) || exported?.has(name) || named.getAliasNode()) continue
      const renamed = replacementOf(name, mine, plannedFunctions, wanted, declared)
      const uses = mine.getDescendantsOfKind(SyntaxKind.Identifier).filter((id) => id.getText() === name && !inRemoved(id) && id.getParent() !== named)
      if (renamed) {
        renames.set(name, renamed)
        for (const id of [named.getNameNode(), ...uses]) splices.push({ start: id.getStart(), end: id.getEnd(), text: renamed })
        changes.push(`renamed ${name} to ${renamed}`)
      } else if (uses.length === 0) {
        splices.push(removeSpecifier(mine, declaration, name))
        changes.push(`dropped ${name} from the import (no longer generated)`)
      } else {
        const line = uses[0]!.getStartLineNumber()
        advice.push(`${name} is no longer generated by ${specifier}, but your code uses it (line ${line}); replace it`)
      }
    }
  }

  // What the planned version exports and this file lacks, appended with its doc comment.
  const added: string[] = []
  const needed = new Set<string>()
  for (const statement of theirs.getStatements()) {
    const names = exportedNames(statement)
    if (names.length === 0 || names.some((name) => declared.has(name) || [...renames.values()].includes(name))) continue
    added.push(statement.getText(true))
    for (const id of statement.getDescendantsOfKind(SyntaxKind.Identifier)) needed.add(id.getText())
    changes.push(`added ${names.join(', ')}`)
  }
  if (added.length > 0) {
    const end = current.length
    const gap = current.endsWith('\n\n') || current.length === 0 ? '' : current.endsWith('\n') ? '\n' : '\n\n'
    splices.push({ start: end, end, text: `${gap}${added.join('\n\n')}\n` })
    splices.push(...importsFor(mine, theirs, needed, declared, renames))
  }

  if (splices.length === 0) return { changes, advice }
  return { content: apply(current, splices), changes, advice }
}

/** The names a generated module's planned text exports; undefined when it is not in the plan. */
function exportsOf(text: string | undefined): Set<string> | undefined {
  return text === undefined ? undefined : new Set([...text.matchAll(TOP_LEVEL)].map((match) => match[1]!))
}

/** The statement with its doc comment and the blank line before it, as a removal. */
function wholeStatement(file: SourceFile, node: FunctionDeclaration): Splice {
  const text = file.getFullText()
  let start = node.getStart(true)
  while (start > 0 && /[ \t\n]/.test(text[start - 1]!)) start--
  return { start, end: node.getEnd(), text: '' }
}

/** Every name declared at the top level, imports included. */
function declaredNames(file: SourceFile): Set<string> {
  const names = new Set<string>()
  for (const declaration of file.getImportDeclarations()) {
    for (const named of declaration.getNamedImports()) names.add((named.getAliasNode() ?? named.getNameNode()).getText())
    const local = declaration.getDefaultImport() ?? declaration.getNamespaceImport()
    if (local) names.add(local.getText())
  }
  for (const statement of file.getStatements()) for (const name of statementNames(statement)) names.add(name)
  return names
}

function statementNames(statement: Node): string[] {
  const named = statement as Node & { getName?: () => string | undefined; getDeclarations?: () => { getName(): string }[] }
  if (typeof named.getDeclarations === 'function') return named.getDeclarations().map((declaration) => declaration.getName())
  const name = typeof named.getName === 'function' ? named.getName() : undefined
  return name ? [name] : []
}

function exportedNames(statement: Node): string[] {
  const exported = statement as Node & { isExported?: () => boolean }
  return typeof exported.isExported === 'function' && exported.isExported() ? statementNames(statement) : []
}

function importedNames(file: SourceFile, specifier: string): string[] {
  return file
    .getImportDeclarations()
    .filter((declaration) => declaration.getModuleSpecifierValue() === specifier)
    .flatMap((declaration) => declaration.getNamedImports().map((named) => named.getName()))
}

/**
 * The name that took `gone`'s place: in a function both versions have, the parameter typed `gone`
 * here is typed with a newly imported name in the plan.
 */
function replacementOf(gone: string, mine: SourceFile, planned: Map<string, FunctionDeclaration>, wanted: Set<string>, declared: Set<string>): string | undefined {
  for (const fn of mine.getFunctions()) {
    const twin = fn.getName() && planned.get(fn.getName()!)
    if (!twin) continue
    for (const [index, parameter] of fn.getParameters().entries()) {
      const now = twin.getParameters()[index]?.getTypeNode()?.getText()
      if (parameter.getTypeNode()?.getText() === gone && now && wanted.has(now) && !declared.has(now)) return now
    }
  }
  return undefined
}

/** The imports the added code needs that the file lacks, from the planned version's imports. */
function importsFor(mine: SourceFile, theirs: SourceFile, needed: Set<string>, declared: Set<string>, renames: Map<string, string>): Splice[] {
  const splices: Splice[] = []
  const renamedTo = new Set(renames.values())
  const imports = mine.getImportDeclarations()
  for (const declaration of theirs.getImportDeclarations()) {
    const specifier = declaration.getModuleSpecifierValue()
    const wanted = declaration.getNamedImports().filter((named) => needed.has(named.getName()) && !declared.has(named.getName()) && !renamedTo.has(named.getName()))
    if (wanted.length === 0) continue
    const typeOnly = declaration.isTypeOnly()
    const same = imports.find((candidate) => candidate.getModuleSpecifierValue() === specifier && candidate.getNamedImports().length > 0)
    // `type` on a name where the import it joins (or the one it came from) is not type-only as a whole.
    const names = (into: boolean) => wanted.map((named) => `${(typeOnly || named.isTypeOnly()) && !into ? 'type ' : ''}${named.getName()}`)
    if (same) {
      const last = same.getNamedImports().at(-1)!
      splices.push({
        start: last.getEnd(),
        end: last.getEnd(),
        text: names(same.isTypeOnly())
          .map((name) => `, ${name}`)
          .join(''),
      })
    } else {
      const after = imports.at(-1)?.getEnd() ?? 0
      const line = `import ${typeOnly ? 'type ' : ''}{ ${names(typeOnly).join(', ')} } from '${specifier}'`
      splices.push({ start: after, end: after, text: after === 0 ? `${line}\n` : `\n${line}` })
    }
  }
  return splices
}

function removeSpecifier(file: SourceFile, declaration: ImportDeclaration, name: string): Splice {
  const named = declaration.getNamedImports()
  if (named.length === 1 && !declaration.getDefaultImport()) {
    const text = file.getFullText()
    let end = declaration.getEnd()
    if (text[end] === '\n') end++
    return { start: declaration.getStart(true), end, text: '' }
  }
  const index = named.findIndex((specifier) => specifier.getName() === name)
  const self = named[index]!
  // With its comma: the one after it, or for the last one the one before it.
  return index < named.length - 1 ? { start: self.getStart(), end: named[index + 1]!.getStart(), text: '' } : { start: named[index - 1]!.getEnd(), end: self.getEnd(), text: '' }
}

function apply(text: string, splices: Splice[]): string {
  const ordered = [...splices].sort((a, b) => b.start - a.start || b.end - a.end)
  let result = text
  let limit = Infinity
  for (const splice of ordered) {
    // Overlapping edits would mean one of them is wrong; keep the later one only.
    if (splice.end > limit) continue
    result = result.slice(0, splice.start) + splice.text + result.slice(splice.end)
    limit = splice.start
  }
  return result
}
