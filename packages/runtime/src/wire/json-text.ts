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
