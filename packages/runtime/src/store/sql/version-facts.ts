/**
 * What a task write learnt, kept per (task, version) until the event of that version is handed
 * on: a run's next write may land before its previous event's lookup runs, so each version keeps
 * its own. Bounded: past `maxTasks` tasks the longest-remembered task's facts are forgotten (a
 * forgotten fact only costs the lookup it would have saved).
 * @module
 */
/** Versions kept per task: far more than a run's writes waiting for their events' hand-over. */
const MAX_VERSIONS = 16

export class VersionFacts<T> {
  readonly #tasks = new Map<string, Map<number, T>>()
  readonly #maxTasks: number

  constructor(maxTasks: number) {
    this.#maxTasks = maxTasks
  }

  set(taskId: string, version: number, fact: T): void {
    let versions = this.#tasks.get(taskId)
    if (!versions) {
      if (this.#tasks.size >= this.#maxTasks) this.#tasks.delete(this.#tasks.keys().next().value!)
      this.#tasks.set(taskId, (versions = new Map()))
    }
    versions.set(version, fact)
    // A task nobody hands events on for (push turned off) keeps only its latest versions.
    if (versions.size > MAX_VERSIONS) versions.delete(versions.keys().next().value!)
  }

  /** The fact of that version, forgotten as it is taken. */
  take(taskId: string, version: number): T | undefined {
    const versions = this.#tasks.get(taskId)
    const fact = versions?.get(version)
    if (fact === undefined) return undefined
    versions!.delete(version)
    if (versions!.size === 0) this.#tasks.delete(taskId)
    return fact
  }

  /** Forgets every version of the task. */
  drop(taskId: string): void {
    this.#tasks.delete(taskId)
  }
}
