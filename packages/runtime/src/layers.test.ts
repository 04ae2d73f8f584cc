/**
 * The runtime's folders are layers: each imports only from folders in rows below its own, so a
 * request goes down the rows and a change to a folder can only reach the rows above it. This
 * reads every import in packages/runtime/src and names each one that reaches up, sideways, or
 * closes a circle between folders. The rows are the README's "Layers" table.
 *
 * Tests and fixtures are exempt as importers: they sit beside the code they test and drive it
 * from above (testing/, the exchange). Code never imports them.
 * @module
 */
import { readdirSync, readFileSync } from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { Node, Project, SyntaxKind } from 'ts-morph'
import { describe, expect, it } from 'vitest'

/** Bottom to top; folders in one row do not import each other. `(entry)` is src/*.ts, the public entry points. */
const ROWS: readonly (readonly string[])[] = [
  ['wire', 'log', 'trace', 'env', 'migrate'],
  ['core'],
  ['store'],
  ['auth', 'limits', 'artifacts', 'push', 'skills'],
  ['run'],
  ['stream', 'jobs'],
  ['methods'],
  ['http'],
  ['card', 'compat-v03', 'entity'],
  ['jsonrpc', 'rest'],
  ['exchange'],
  ['agents'],
  ['host', 'grpc', 'serve'],
  ['inbox'],
  ['testing'],
  ['(entry)'],
]

/**
 * Upward imports still in place, each `importer -> imported` (paths under src); none now. Add one
 * only while a move is under way, and delete it as its import goes: a line no import matches
 * fails this test.
 */
const PENDING: readonly string[] = []

interface Import {
  /** The importing file, relative to src (`store/write.ts`). */
  file: string
  /** As written (`../wire/types.js`). */
  specifier: string
  /** The imported file, relative to src (`wire/types.ts`). */
  target: string
}

const ENTRY = '(entry)'

const folderOf = (file: string): string => (file.includes('/') ? file.slice(0, file.indexOf('/')) : ENTRY)

const isTestSupport = (file: string): boolean => /\.test\.ts$/.test(file) || file.split('/').includes('__fixture__')

/**
 * Every relative import of these sources (paths under src → text): import and export-from
 * declarations (type-only ones too: they tie folders as much), `import()` calls and `import('…')` types.
 */
function readImports(sources: Record<string, string>): Import[] {
  const project = new Project({ useInMemoryFileSystem: true, skipFileDependencyResolution: true })
  const imports: Import[] = []
  for (const [file, text] of Object.entries(sources)) {
    const source = project.createSourceFile(`/src/${file}`, text)
    const specifiers: string[] = []
    for (const declaration of [...source.getImportDeclarations(), ...source.getExportDeclarations()]) {
      const specifier = declaration.getModuleSpecifierValue()
      if (specifier !== undefined) specifiers.push(specifier)
    }
    for (const call of source.getDescendantsOfKind(SyntaxKind.CallExpression)) {
      const [argument] = call.getArguments()
      if (call.getExpression().getKind() === SyntaxKind.ImportKeyword && argument && Node.isStringLiteral(argument)) specifiers.push(argument.getLiteralValue())
    }
    for (const type of source.getDescendantsOfKind(SyntaxKind.ImportType)) {
      const literal = type.getArgument()
      if (Node.isLiteralTypeNode(literal) && Node.isStringLiteral(literal.getLiteral())) specifiers.push(literal.getLiteral().getText().slice(1, -1))
    }
    for (const specifier of specifiers) {
      if (!specifier.startsWith('.')) continue
      const target = path.posix.normalize(path.posix.join(path.posix.dirname(file), specifier)).replace(/\.js$/, '.ts')
      imports.push({ file, specifier, target })
    }
  }
  return imports
}

/** What is wrong with these imports under these rows, one line each; empty when the layers hold. */
function checkLayers(imports: readonly Import[], rows: readonly (readonly string[])[], pending: readonly string[]): string[] {
  const rowOf = new Map(rows.flatMap((folders, row) => folders.map((folder) => [folder, row] as const)))
  const problems: string[] = []
  const unplaced = new Set<string>()
  const unused = new Set(pending)
  // Folder → folder, with the first import that makes each edge (for naming a circle's hops).
  const edges = new Map<string, Map<string, Import>>()
  for (const entry of imports) {
    if (isTestSupport(entry.file)) continue
    const from = folderOf(entry.file)
    const to = folderOf(entry.target)
    const named = `${entry.file} imports '${entry.specifier}'`
    if (isTestSupport(entry.target)) {
      problems.push(`${named}: code imports a test or fixture file; move what it needs into the code`)
      continue
    }
    if (from === to) continue
    for (const folder of [from, to]) if (!rowOf.has(folder)) unplaced.add(folder)
    if (!rowOf.has(from) || !rowOf.has(to)) continue
    const line = `${entry.file} -> ${entry.target}`
    if (pending.includes(line)) {
      unused.delete(line)
      continue
    }
    const [fromRow, toRow] = [rowOf.get(from)!, rowOf.get(to)!]
    if (toRow >= fromRow) {
      const how = toRow === fromRow ? 'sideways to' : 'up to'
      problems.push(
        `${named}: ${from} (row ${fromRow + 1} of ${rows.length}) reaches ${how} ${to} (row ${toRow + 1}); ` +
          `move what it needs below ${from}, or have a folder above both pass it in`,
      )
    }
    const out = edges.get(from) ?? new Map<string, Import>()
    if (!out.has(to)) out.set(to, entry)
    edges.set(from, out)
  }
  for (const folder of unplaced) problems.push(`folder ${folder} is in no row: add it to ROWS in layers.test.ts and to the README's Layers table`)
  for (const line of unused) problems.push(`PENDING lists "${line}", which no file imports any more: delete the line`)
  for (const circle of circles(edges)) {
    const hops = circle.map((folder, i) => {
      const hop = edges.get(folder)!.get(circle[(i + 1) % circle.length]!)!
      return `${hop.file} imports '${hop.specifier}'`
    })
    problems.push(`circle between folders ${[...circle, circle[0]].join(' → ')}: ${hops.join('; ')}`)
  }
  return problems
}

/** Each elementary circle of the folder graph once, starting at its first folder in name order. */
function circles(edges: ReadonlyMap<string, ReadonlyMap<string, unknown>>): string[][] {
  const found: string[][] = []
  const folders = [...edges.keys()].sort()
  for (const start of folders) {
    // Only circles whose smallest folder is `start`: each is found once.
    const walk = (folder: string, trail: string[]): void => {
      for (const next of edges.get(folder)?.keys() ?? []) {
        if (next === start) found.push(trail)
        else if (next > start && !trail.includes(next)) walk(next, [...trail, next])
      }
    }
    walk(start, [start])
  }
  return found
}

const SRC = path.dirname(fileURLToPath(import.meta.url))

/** Every TypeScript file under src but tests and fixtures (exempt as importers), by its path there. */
function readSources(): Record<string, string> {
  const sources: Record<string, string> = {}
  for (const entry of readdirSync(SRC, { recursive: true, encoding: 'utf8' })) {
    const file = entry.split(path.sep).join('/')
    if (file.endsWith('.ts') && !isTestSupport(file) && !file.split('/').includes('node_modules')) sources[file] = readFileSync(path.join(SRC, entry), 'utf8')
  }
  return sources
}

describe('the runtime layers', () => {
  const imports = readImports(readSources())

  it('has every folder import only from the rows below it, with no circle between folders', () => {
    expect(imports.length).toBeGreaterThan(400)
    expect(checkLayers(imports, ROWS, PENDING)).toEqual([])
  })

  it("matches the README's Layers table, row by row", () => {
    const readme = readFileSync(path.join(SRC, '..', 'README.md'), 'utf8')
    const section = readme.slice(readme.indexOf('\n## Layers\n'), readme.indexOf('\n### ', readme.indexOf('\n## Layers\n')))
    const tableRows = section.split('\n').filter((line) => /^\| \d+ \|/.test(line))
    const folders = tableRows.map((line) => [...line.split('|')[2]!.matchAll(/`([^`]+)`/g)].map(([, name]) => (name === 'src/*.ts' ? ENTRY : name)))
    expect(folders).toEqual(ROWS)
  })

  describe('fails on a planted import', () => {
    // Only what the planted file adds: these cases hold whatever the tree's own state.
    const before = new Set(checkLayers(imports, ROWS, PENDING))
    const plant = (sources: Record<string, string>) => checkLayers([...imports, ...readImports(sources)], ROWS, PENDING).filter((problem) => !before.has(problem))

    it.each([
      ['an import', "import { createCall } from '../methods/call.js'"],
      ['a type-only import', "import type { Call } from '../methods/method.js'"],
      ['an export-from', "export { createCall } from '../methods/call.js'"],
      ['an import() call', "export const later = () => import('../methods/call.js')"],
      ["an import('…') type", "export type Later = import('../methods/method.js').Call"],
    ])('reaching up through %s, naming the file, the import and both layers', (_, text) => {
      const [upward, ...rest] = plant({ 'store/planted.ts': text })
      expect(upward).toMatch(/^store\/planted\.ts imports '\.\.\/methods\/(call|method)\.js': store \(row 3 of 16\) reaches up to methods \(row 7\)/)
      // methods/ imports store/ (and run/, which does too): every circle that closes goes through the planted file.
      expect(rest.length).toBeGreaterThan(0)
      for (const circle of rest) expect(circle).toMatch(/^circle between folders .*methods.*store\/planted\.ts imports '\.\.\/methods\//)
    })

    it('that closes a circle between folders, naming each hop', () => {
      // stream/ already imports run/ (task-stream.ts → run/…); run/ importing stream/ closes the circle.
      const problems = plant({ 'run/planted.ts': "import type { TaskStream } from '../stream/task-stream.js'" })
      expect(problems).toHaveLength(2)
      expect(problems[0]).toMatch(/^run\/planted\.ts imports '\.\.\/stream\/task-stream\.js': run \(row 5 of 16\) reaches up to stream \(row 6\)/)
      expect(problems[1]).toMatch(/^circle between folders run → stream → run: run\/planted\.ts imports '\.\.\/stream\/task-stream\.js'; stream\/\S+ imports '\.\.\/run\/\S+'$/)
    })

    it('that closes a longer circle, also within one row', () => {
      const problems = checkLayers(
        readImports({
          'a/one.ts': "import { two } from '../b/two.js'",
          'b/two.ts': "import { three } from '../c/three.js'",
          'c/three.ts': "import { one } from '../a/one.js'",
        }),
        [['a', 'b', 'c']],
        [],
      )
      expect(problems).toContain("circle between folders a → b → c → a: a/one.ts imports '../b/two.js'; b/two.ts imports '../c/three.js'; c/three.ts imports '../a/one.js'")
      expect(problems.filter((problem) => problem.includes('reaches sideways'))).toHaveLength(3)
    })

    it('in a folder no row holds, or in code that imports a test file', () => {
      expect(plant({ 'transports/planted.ts': "import { A2AError } from '../wire/a2a-error.js'" })).toEqual([
        "folder transports is in no row: add it to ROWS in layers.test.ts and to the README's Layers table",
      ])
      expect(plant({ 'run/planted.ts': "import { makeRecord } from '../store/prisma/__fixture__/databases.js'" })).toEqual([
        "run/planted.ts imports '../store/prisma/__fixture__/databases.js': code imports a test or fixture file; move what it needs into the code",
      ])
    })

    it('allowed only as PENDING lists it, and a stale PENDING line fails', () => {
      const upward = readImports({ 'store/planted.ts': "import { createCall } from '../methods/call.js'" })
      expect(checkLayers(upward, ROWS, ['store/planted.ts -> methods/call.ts'])).toEqual([])
      expect(checkLayers([], ROWS, ['store/planted.ts -> methods/call.ts'])).toEqual([
        'PENDING lists "store/planted.ts -> methods/call.ts", which no file imports any more: delete the line',
      ])
    })
  })
})
