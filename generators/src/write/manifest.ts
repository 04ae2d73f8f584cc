/**
 * `.a2a/manifest.json`: the sha256 of every generated file as a2a last wrote it. A generated file
 * whose bytes no longer match was edited by hand; a listed file the plan no longer has is an
 * orphan. The file is deterministic (sorted keys, no timestamps or versions) so it diffs cleanly.
 * @module
 */
import { createHash } from 'node:crypto'
import { readFile } from 'node:fs/promises'
import { GeneratorError } from '../errors.js'
import { assertSafePath, resolveInApp } from './paths.js'

export const MANIFEST_PATH = '.a2a/manifest.json'

export interface ManifestOnDisk {
  /** path → sha256 hex; empty when there is no manifest yet. */
  hashes: Map<string, string>
  /** The file's text, to tell whether a rewrite would change it; undefined when absent. */
  text: string | undefined
  /** The run's input fingerprint and user-owned files, when the last run recorded them. */
  cache?: ManifestCache
  /**
   * path → sha256 of the user-owned files as a2a wrote them: one still equal to it is untouched,
   * so a2a may rewrite or delete it with its entity; one that differs is the user's edit.
   */
  userHashes: Map<string, string>
}

/**
 * What lets a later run skip planning: the fingerprint of the inputs the files were planned from,
 * and the user-owned files that plan had (they must still exist, or the run would recreate them).
 * Not part of what `--check` compares: it changes with the generator's own sources.
 */
export interface ManifestCache {
  inputs: string
  userFiles: string[]
  /** The plan's notes, which a run that skips planning still prints. */
  notes?: string[]
}

export function sha256(content: string | Buffer): string {
  return createHash('sha256').update(content).digest('hex')
}

export function serializeManifest(hashes: ReadonlyMap<string, string>, cache?: ManifestCache, userHashes: ReadonlyMap<string, string> = new Map()): string {
  const files = sorted(hashes)
  const written = userHashes.size > 0 ? { userHashes: sorted(userHashes) } : {}
  const notes = cache?.notes?.length ? { notes: cache.notes } : {}
  const body = cache ? { files, ...written, inputs: cache.inputs, userFiles: [...cache.userFiles].sort(), ...notes } : { files, ...written }
  return `${JSON.stringify(body, null, 2)}\n`
}

// Default sort compares UTF-16 code units: the same order on every machine and locale.
function sorted(hashes: ReadonlyMap<string, string>): Record<string, string> {
  const record: Record<string, string> = {}
  for (const path of [...hashes.keys()].sort()) record[path] = hashes.get(path) ?? ''
  return record
}

export async function readManifest(appRoot: string): Promise<ManifestOnDisk> {
  let text: string
  try {
    text = await readFile(resolveInApp(appRoot, MANIFEST_PATH), 'utf8')
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { hashes: new Map(), userHashes: new Map(), text: undefined }
    throw error
  }
  return { ...parseManifest(text), text }
}

function parseManifest(text: string): { hashes: Map<string, string>; userHashes: Map<string, string>; cache?: ManifestCache } {
  const invalid = (why: string) =>
    new GeneratorError(
      `${MANIFEST_PATH} is not a valid a2a manifest (${why}). Restore it from version control, or delete it: a2a then treats existing generated files as hand-made and asks for --force unless they already match.`,
      MANIFEST_PATH,
    )
  let parsed: unknown
  try {
    parsed = JSON.parse(text)
  } catch {
    throw invalid('not JSON')
  }
  const files = (parsed as { files?: unknown } | null)?.files
  if (typeof files !== 'object' || files === null || Array.isArray(files)) {
    throw invalid('expected { "files": { "<path>": "<sha256>" } }')
  }
  const hashMap = (record: object) => {
    const map = new Map<string, string>()
    for (const [path, hash] of Object.entries(record)) {
      if (typeof hash !== 'string' || !/^[0-9a-f]{64}$/.test(hash)) throw invalid(`bad hash for ${path}`)
      assertSafePath(path, MANIFEST_PATH)
      map.set(path, hash)
    }
    return map
  }
  const hashes = hashMap(files)
  const written = (parsed as { userHashes?: unknown }).userHashes
  const userHashes = typeof written === 'object' && written !== null && !Array.isArray(written) ? hashMap(written) : new Map<string, string>()
  // The cache fields only ever allow a skip; a malformed one is ignored (the run then plans).
  const { inputs, userFiles, notes } = parsed as { inputs?: unknown; userFiles?: unknown; notes?: unknown }
  const validUserFiles = Array.isArray(userFiles) && userFiles.every((path) => typeof path === 'string')
  if (typeof inputs !== 'string' || !/^[0-9a-f]{64}$/.test(inputs) || !validUserFiles) return { hashes, userHashes }
  for (const path of userFiles as string[]) assertSafePath(path, MANIFEST_PATH)
  const validNotes = Array.isArray(notes) && notes.every((note) => typeof note === 'string') ? { notes: notes as string[] } : {}
  return { hashes, userHashes, cache: { inputs, userFiles: userFiles as string[], ...validNotes } }
}
