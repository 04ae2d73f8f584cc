/**
 * The no-op shortcut of `a2a generate entities`: when the inputs' fingerprint equals the one the
 * manifest recorded, every generated file still has the bytes a2a wrote, and every user-owned file
 * still exists, a full run would change nothing, so its up-to-date report is given without
 * planning. Light on purpose: the CLI loads this before (and instead of) the planner's modules.
 * @module
 */
import { readFile, stat } from 'node:fs/promises'
import { fingerprintInputs } from './inputs.js'
import type { PlanInput } from './plan/plan.js'
import { formatReport } from './write/format-report.js'
import { readManifest, serializeManifest, sha256 } from './write/manifest.js'
import { resolveInApp } from './write/paths.js'
import type { ApplyMode, ApplyReport, FileOutcome } from './write/types.js'

export { GeneratorError } from './errors.js'

/**
 * The lines a full run in `mode` would print when nothing is to change, or `undefined` when that
 * cannot be shown without planning (then the caller plans). Never throws.
 */
export async function upToDateReport(input: PlanInput, mode: ApplyMode): Promise<string[] | undefined> {
  try {
    const manifest = await readManifest(input.appRoot)
    const { cache, text } = manifest
    // A manifest the writer would rewrite (reformatted by hand, say) is a change to make.
    if (cache === undefined || text !== serializeManifest(manifest.hashes, cache, manifest.userHashes)) return undefined
    const [inputs, generatedIntact, userFilesExist] = await Promise.all([
      fingerprintInputs(input),
      everyAsync([...manifest.hashes], async ([path, hash]) => {
        const bytes = await readFile(resolveInApp(input.appRoot, path)).catch(() => undefined)
        return bytes !== undefined && sha256(bytes) === hash
      }),
      everyAsync(cache.userFiles, async (path) => (await stat(resolveInApp(input.appRoot, path)).catch(() => undefined))?.isFile() === true),
    ])
    if (inputs === undefined || inputs !== cache.inputs || !generatedIntact || !userFilesExist) return undefined
    const files: FileOutcome[] = [
      ...[...manifest.hashes.keys()].map((path): FileOutcome => ({ path, ownership: 'generated', action: 'unchanged' })),
      ...cache.userFiles.map((path): FileOutcome => ({ path, ownership: 'user', action: 'kept' })),
    ]
    const notes = cache.notes ? { notes: cache.notes } : {}
    const report: ApplyReport = { appRoot: input.appRoot, mode, force: false, files, manifest: 'unchanged', wrote: false, errors: [], ...notes }
    return formatReport(report)
  } catch {
    return undefined
  }
}

async function everyAsync<T>(items: readonly T[], test: (item: T) => Promise<boolean>): Promise<boolean> {
  return (await Promise.all(items.map(test))).every(Boolean)
}
