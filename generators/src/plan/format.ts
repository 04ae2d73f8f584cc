/**
 * The last step of every planned file, in memory: LF line endings, no trailing spaces, at most one
 * blank line in a row, exactly one newline at the end. Comparing with disk happens after this, so a
 * file is never stale only because of whitespace.
 * @module
 */
export function format(content: string): string {
  const lines = content
    .replace(/\r\n?/g, '\n')
    .split('\n')
    .map((line) => line.trimEnd())
  const kept = lines.filter((line, index) => line !== '' || (index > 0 && lines[index - 1] !== ''))
  while (kept[0] === '') kept.shift()
  return `${kept.join('\n').trimEnd()}\n`
}
