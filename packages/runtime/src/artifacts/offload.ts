/**
 * Keeps artifacts small on the wire: a text or raw part a skill returns past the inline cap
 * (64 KiB by default) is stored as an {@link ArtifactFile} and replaced by a `url` part naming
 * where this app serves it, with the part's media type, filename and metadata kept.
 * @module
 */
import { randomUUID } from 'node:crypto'
import type { Part } from '../wire/types.js'
import type { ArtifactFiles } from '../core/artifact-files.js'

export const INLINE_ARTIFACT_BYTES = 64 * 1024
/** Files of deleted tasks are swept at most this often, when a file is stored. */
const SWEEP_INTERVAL_MS = 10 * 60_000

export interface ArtifactOffload {
  files: ArtifactFiles
  /** Text or bytes over this many are served by URL instead. */
  inlineBytes: number
  /** The exchange's endpoint path; files are served under `<path>/artifacts/`. */
  path: string
  /** Whether a task still exists, for the sweep. */
  taskExists: (taskId: string) => Promise<boolean>
  lastSweep: number
}

export const artifactUrl = (baseUrl: string, path: string, taskId: string, fileId: string): string =>
  `${baseUrl}${path}/artifacts/${encodeURIComponent(taskId)}/${encodeURIComponent(fileId)}`

/** Bytes a text or raw part holds, counted without copying them; undefined for other parts. */
const partBytes = (part: Part): number | undefined => ('text' in part ? Buffer.byteLength(part.text) : 'raw' in part ? Buffer.byteLength(part.raw, 'base64') : undefined)

/** Whether any part is over the inline cap (most artifacts: none, and nothing is stored). */
export const hasLargeParts = (offload: ArtifactOffload, parts: readonly Part[]): boolean => parts.some((part) => (partBytes(part) ?? 0) > offload.inlineBytes)

/** `parts` with every oversized text or raw part stored and replaced by its url part. */
export async function offloadLargeParts(offload: ArtifactOffload, task: { id: string; owner: string }, baseUrl: string, parts: readonly Part[]): Promise<Part[]> {
  const result: Part[] = []
  for (const part of parts) {
    if ((partBytes(part) ?? 0) <= offload.inlineBytes) {
      result.push(part)
      continue
    }
    const bytes = 'text' in part ? Buffer.from(part.text) : Buffer.from((part as { raw: string }).raw, 'base64')
    const { text: _text, raw: _raw, ...common } = part as Part & { text?: string; raw?: string }
    const mediaType = part.mediaType ?? ('text' in part ? 'text/plain; charset=utf-8' : 'application/octet-stream')
    const id = randomUUID()
    await offload.files.put({
      taskId: task.id,
      id,
      owner: task.owner,
      mediaType,
      ...(part.filename ? { filename: part.filename } : {}),
      bytes,
      createdAt: Date.now(),
    })
    result.push({ ...common, url: artifactUrl(baseUrl, offload.path, task.id, id), mediaType })
  }
  if (result.some((part, index) => part !== parts[index]) && Date.now() - offload.lastSweep > SWEEP_INTERVAL_MS) {
    offload.lastSweep = Date.now()
    void offload.files.sweep(offload.taskExists).catch(() => undefined)
  }
  return result
}
