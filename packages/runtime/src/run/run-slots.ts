/**
 * Per-owner bound on concurrent skill runs, so one caller cannot occupy the process.
 * @module
 */

export class RunSlots {
  readonly #inUse = new Map<string, number>()

  /** @param limit runs per owner; negative means unlimited. */
  constructor(readonly limit: number) {}

  /** Takes a slot, or returns false when the owner is at the cap. */
  claim(owner: string): boolean {
    const used = this.#inUse.get(owner) ?? 0
    if (this.limit >= 0 && used >= this.limit) return false
    this.#inUse.set(owner, used + 1)
    return true
  }

  release(owner: string): void {
    const used = (this.#inUse.get(owner) ?? 1) - 1
    if (used <= 0) this.#inUse.delete(owner)
    else this.#inUse.set(owner, used)
  }
}
