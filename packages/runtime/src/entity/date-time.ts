/**
 * RFC 3339 `date-time` for JSON Schema `format`, so the registry validates timestamps without
 * pulling in ajv-formats: the grammar plus real calendar ranges (no February 30th).
 * @module
 */

const DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(?:\.\d+)?(?:[Zz]|([+-])(\d{2}):(\d{2}))$/
const DAYS = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31]

const isLeapYear = (year: number) => year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0)

export function isDateTime(value: string): boolean {
  const match = DATE_TIME.exec(value)
  if (!match) return false
  const [year, month, day, hour, minute, second] = match.slice(1, 7).map(Number) as [number, number, number, number, number, number]
  if (month < 1 || month > 12 || day < 1) return false
  if (day > (month === 2 && isLeapYear(year) ? 29 : DAYS[month - 1]!)) return false
  if (hour > 23 || minute > 59 || second > 60) return false
  if (match[8] !== undefined && (Number(match[8]) > 23 || Number(match[9]) > 59)) return false
  // A leap second only exists at 23:59:60 UTC; shift the local time by the offset to check.
  if (second === 60) {
    const sign = match[7] === '-' ? 1 : -1
    const offset = match[8] === undefined ? 0 : Number(match[8]) * 60 + Number(match[9])
    const utcMinutes = (((hour * 60 + minute + sign * offset) % 1440) + 1440) % 1440
    if (utcMinutes !== 23 * 60 + 59) return false
  }
  return true
}
