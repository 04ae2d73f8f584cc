/**
 * Compares the plan with disk and the manifest and decides, per file, what a run does. Reads only;
 * `applyPlan` acts on the decisions, so a refused run can stop before touching anything.
 * @module
 */
import { readFile } from 'node:fs/promises'
import { GeneratorError } from '../errors.js'
import { MANIFEST_PATH, readManifest, serializeManifest, sha256 } from './manifest.js'
import { assertSafePath, resolveInApp } from './paths.js'
import type { ApplyReport, FileOutcome, Plan } from './types.js'
import { mayNeedEdits, userEdits } from './user-edits.js'

/** A file's outcome plus the texts the writer and the diff need. */
export interface Decision extends FileOutcome {
  /** The planned content (absent for orphans). */
  content?: string
  /** The content on disk (absent when there is no file). */
  current?: string
}

export interface Assessment {
  decisions: Decision[]
  manifest: ApplyReport['manifest']
  /** The manifest this plan implies; written last in `write` mode. */
  manifestText: string
  /** Only the manifest's cache fields differ: rewritten in `write` mode, but nothing is stale. */
  refreshCache: boolean
}

export async function assess(appRoot: string, plan: Plan, force: boolean): Promise<Assessment> {
  checkPlan(plan)
  const last = await readManifest(appRoot)
  const planned = new Set(plan.files.map((file) => file.path))
  const orphans = [...last.hashes].filter(([path]) => !planned.has(path))

  const plannedText = new Map(plan.files.map((file) => [file.path, file.content]))
  const fromPlan = plan.files.map(async (file): Promise<Decision> => {
    const disk = await readIfExists(appRoot, file.path)
    const base = { path: file.path, ownership: file.ownership, content: file.content }
    if (disk === undefined) return { ...base, action: 'created' }
    const current = disk.toString('utf8')
    // A user-owned file is the user's once it exists, whatever the plan would put there now; but
    // one still exactly as a2a wrote it follows the plan (a hooks file losing an operation's hook).
    if (file.ownership === 'user') {
      if (disk.equals(Buffer.from(file.content, 'utf8'))) return { ...base, current, action: 'kept' }
      if (last.userHashes.get(file.path) === sha256(disk)) return { ...base, current, action: 'updated' }
      // Edited by the user: a2a edits it in place only where the generated code needs it.
      const { content, changes, advice } = mayNeedEdits(file.path, current, file.content)
        ? await userEdits(file.path, current, file.content, (path) => plannedText.get(path))
        : { changes: [], advice: [] }
      if (content !== undefined) return { ...base, content, current, action: 'updated', edits: changes, ...(advice.length > 0 ? { advice: advice.join('; ') } : {}) }
      // a2a would now write it differently than it did (a schema change reached a seed): say so.
      const recorded = last.userHashes.get(file.path)
      if (advice.length === 0 && recorded !== undefined && recorded !== sha256(file.content)) advice.push(STALE_USER_FILE)
      return { ...base, current, action: 'kept', ...(advice.length > 0 ? { advice: advice.join('; ') } : {}) }
    }
    if (disk.equals(Buffer.from(file.content, 'utf8'))) return { ...base, current, action: 'unchanged' }
    const lastHash = last.hashes.get(file.path)
    if (lastHash === sha256(disk)) return { ...base, current, action: 'updated' }
    const handEdit = lastHash === undefined ? 'untracked' : 'edited'
    return { ...base, current, handEdit, action: force ? 'updated' : 'refused' }
  })

  const fromManifest = orphans.map(async ([path, lastHash]): Promise<Decision | undefined> => {
    const disk = await readIfExists(appRoot, path)
    if (disk === undefined) return undefined // already gone; dropping it from the manifest is enough
    const base = { path, ownership: 'generated' as const, orphan: true, current: disk.toString('utf8') }
    if (sha256(disk) === lastHash) return { ...base, action: 'deleted' }
    return { ...base, handEdit: 'edited', action: force ? 'deleted' : 'refused' }
  })

  // User-owned files of entities no longer declared: deleted while untouched, else left with advice.
  const userOrphans = [...last.userHashes].filter(([path]) => !planned.has(path))
  const fromUserManifest = userOrphans.map(async ([path, lastHash]): Promise<Decision | undefined> => {
    const disk = await readIfExists(appRoot, path)
    if (disk === undefined) return undefined
    const base = { path, ownership: 'user' as const, orphan: true, current: disk.toString('utf8') }
    if (sha256(disk) === lastHash) return { ...base, action: 'deleted' }
    return { ...base, action: 'kept', advice: 'its entity is no longer declared and the generated module it imports is gone; delete the file, or move what you keep elsewhere' }
  })

  const decisions = [...(await Promise.all(fromPlan)), ...(await Promise.all(fromManifest)), ...(await Promise.all(fromUserManifest))]
    .filter((decision) => decision !== undefined)
    .sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0))

  const hashes = new Map<string, string>()
  for (const file of plan.files) if (file.ownership === 'generated') hashes.set(file.path, sha256(file.content))
  // A user file's hash is what a2a wrote: recorded when this run writes it (or finds it equal to
  // the plan), kept from the last run while the user's edit stands.
  const userHashes = new Map<string, string>()
  for (const decision of decisions) {
    if (decision.ownership !== 'user' || decision.orphan) continue
    // A file a2a edited in place stays the user's: recorded is the plan it now agrees with, which
    // the file equals only if the user makes it so.
    const wrote = decision.action === 'created' || decision.action === 'updated' || decision.current === decision.content
    const recorded = decision.edits ? sha256(plannedText.get(decision.path) ?? '') : wrote ? sha256(decision.content ?? '') : last.userHashes.get(decision.path)
    if (recorded !== undefined) userHashes.set(decision.path, recorded)
  }
  for (const decision of decisions)
    if (decision.orphan && decision.ownership === 'user' && decision.action === 'kept') userHashes.set(decision.path, last.userHashes.get(decision.path)!)
  const userFiles = plan.files.filter((file) => file.ownership === 'user').map((file) => file.path)
  const cache = plan.inputs === undefined ? undefined : { inputs: plan.inputs, userFiles, ...(plan.notes?.length ? { notes: plan.notes } : {}) }
  const manifestText = serializeManifest(hashes, cache, userHashes)
  // Staleness is judged on the generated files' hashes alone: the cache fields change with the
  // generator's own sources, and a manifest from before userHashes existed must not fail --check.
  const tracked = serializeManifest(hashes)
  const lastTracked = last.text === undefined ? undefined : serializeManifest(last.hashes)
  const manifest = lastTracked === tracked || (last.text === undefined && hashes.size === 0) ? 'unchanged' : last.text === undefined ? 'created' : 'updated'
  const refreshCache = manifest === 'unchanged' && last.text !== undefined && last.text !== manifestText
  return { decisions, manifest, manifestText, refreshCache }
}

const STALE_USER_FILE =
  'a2a now writes it differently than when it wrote it (its inputs changed, e.g. the owner model), and your edits keep it as it was; to take the new version, move it aside, rerun, and carry your edits over'

function checkPlan(plan: Plan): void {
  const seen = new Set<string>()
  for (const file of plan.files) {
    assertSafePath(file.path, 'The plan')
    if (file.path === MANIFEST_PATH) {
      throw new GeneratorError(`The plan must not contain ${MANIFEST_PATH}: the writer owns it.`, file.path)
    }
    if (seen.has(file.path)) throw new GeneratorError(`The plan lists ${file.path} twice.`, file.path)
    seen.add(file.path)
  }
}

async function readIfExists(appRoot: string, path: string): Promise<Buffer | undefined> {
  try {
    return await readFile(resolveInApp(appRoot, path))
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code
    if (code === 'ENOENT') return undefined
    if (code === 'EISDIR') {
      throw new GeneratorError(`${path} is a folder, but a2a generates a file there. Move the folder away and rerun.`, path)
    }
    throw error
  }
}
