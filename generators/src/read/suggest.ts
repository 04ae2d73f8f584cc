/** "did you mean …": the closest candidate by edit distance, ignoring case, when it is close enough. */
export function closest(word: string, candidates: readonly string[]): string | undefined {
  let best: string | undefined
  let bestDistance = Infinity
  for (const candidate of candidates) {
    const distance = editDistance(word.toLowerCase(), candidate.toLowerCase())
    if (distance < bestDistance) [best, bestDistance] = [candidate, distance]
  }
  // A third of the word may be wrong (a typo, a plural, a case slip); further off is a different word.
  return bestDistance <= Math.max(2, Math.floor(word.length / 3)) ? best : undefined
}

/** ` (did you mean "Invoice"?)`, or nothing. */
export function didYouMean(word: string, candidates: readonly string[]): string {
  const suggestion = closest(word, candidates)
  return suggestion === undefined ? '' : ` (did you mean "${suggestion}"?)`
}

function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, index) => index)
  for (let i = 1; i <= a.length; i++) {
    const current = [i]
    for (let j = 1; j <= b.length; j++) {
      const substitution = previous[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1)
      current.push(Math.min(previous[j]! + 1, current[j - 1]! + 1, substitution))
    }
    previous = current
  }
  return previous[b.length]!
}
