/**
 * Artifact content too large to travel inline: a skill's text or bytes past the inline cap are
 * kept here and the artifact carries a `url` part to them instead, served on the same app to the
 * task's own callers (the exchange checks the task is theirs; there are no anonymous links).
 * {@link MemoryArtifactFiles} keeps them in the process; SQL stores keep them in A2AArtifactFile.
 * @module
 */

export interface ArtifactFile {
  taskId: string
  /** Unique within its task. */
  id: string
  /** The task's owner, kept for erasure. */
  owner: string
  mediaType: string
  filename?: string
  bytes: Uint8Array
  /** Epoch milliseconds. */
  createdAt: number
}

export interface ArtifactFiles {
  put(file: ArtifactFile): Promise<void>
  get(taskId: string, id: string): Promise<ArtifactFile | undefined>
  /** Deletes the files of tasks that no longer exist (trimmed or erased); returns how many. */
  sweep(taskExists: (taskId: string) => Promise<boolean>): Promise<number>
}

export class MemoryArtifactFiles implements ArtifactFiles {
  readonly #files = new Map<string, ArtifactFile>()

  async put(file: ArtifactFile): Promise<void> {
    this.#files.set(`${file.taskId}\u0000${file.id}`, file)
  }

  async get(taskId: string, id: string): Promise<ArtifactFile | undefined> {
    return this.#files.get(`${taskId}\u0000${id}`)
  }

  async sweep(taskExists: (taskId: string) => Promise<boolean>): Promise<number> {
    let swept = 0
    for (const [key, file] of this.#files) {
      if (await taskExists(file.taskId)) continue
      this.#files.delete(key)
      swept++
    }
    return swept
  }
}
