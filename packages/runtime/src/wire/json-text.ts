/**
 * Scanning JSON text without parsing it, for the checks that run before JSON.parse.
 * @module
 */

/** Index just past the closing quote of the string starting at `i` (native search: bodies run to a MiB). */
export function stringEnd(text: string, i: number): number {
  for (let from = i + 1; ; ) {
    const quote = text.indexOf('"', from)
    if (quote < 0) return text.length
    // A quote after an odd run of backslashes is escaped.
    let backslashes = 0
    while (text.charCodeAt(quote - 1 - backslashes) === 0x5c) backslashes++
    if (backslashes % 2 === 0) return quote + 1
    from = quote + 1
  }
}

/** Past this many keys an object's are looked up in a Map; an envelope or a message has a handful. */
const FEW_KEYS = 16

/**
 * The keys of one object seen so far, folded to lower case, for the repeated-key rule: JSON.parse
 * keeps the last of repeated keys, so `{"method":"GetTask","method":"CancelTask"}` would mean
 * different things to different parsers. Few keys are kept side by side in an array, more in a Map.
 */
export class KeySpellings {
  readonly #few: string[] = []
  #many: Map<string, string> | undefined

  /** Adds `key`; describes how it repeats an earlier key of `where` (exactly or in another case), else undefined. */
  repeat(key: string, where: string): string | undefined {
    const folded = key.toLowerCase()
    const few = this.#few
    let earlier: string | undefined
    if (this.#many) earlier = this.#many.get(folded)
    else for (let k = 0; k < few.length; k += 2) if (few[k] === folded) earlier = few[k + 1]
    if (earlier === key) return `${where} "${key}" appears more than once`
    if (earlier !== undefined) return `${where} "${key}" repeats "${earlier}" in another case`
    if (this.#many) this.#many.set(folded, key)
    else if (few.push(folded, key) > 2 * FEW_KEYS) {
      this.#many = new Map()
      for (let k = 0; k < few.length; k += 2) this.#many.set(few[k]!, few[k + 1]!)
    }
    return undefined
  }
}
