/**
 * Small helpers every benchmark shares: its knobs come from the environment, and server cost is
 * read from /proc so it holds steady when neighbours share the cores.
 * @module
 */
import { readFileSync } from 'node:fs'

/** A positive integer from `process.env[name]`, or `fallback` when unset; anything else is an error. */
export function positiveInt(name: string, fallback: number): number {
  const raw = process.env[name]
  if (raw === undefined || raw === '') return fallback
  const value = Number(raw)
  if (!Number.isInteger(value) || value <= 0) throw new Error(`${name} must be a positive integer, got ${JSON.stringify(raw)}`)
  return value
}

/** user+system CPU ms of a process from /proc (Linux); undefined elsewhere. */
export function cpuMs(pid: number | undefined): number | undefined {
  if (pid === undefined) return undefined
  try {
    // Fields after the parenthesised command name; utime and stime are the 12th and 13th, in USER_HZ (100) ticks.
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ')
    return (Number(fields[11]) + Number(fields[12])) * 10
  } catch {
    return undefined
  }
}

/** A `Vm…:` line of /proc/<pid>/status in bytes (Linux), read without asking the process. */
export function procStatusBytes(pid: number | undefined, field: 'VmRSS' | 'VmHWM'): number | undefined {
  if (pid === undefined) return undefined
  try {
    const match = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(readFileSync(`/proc/${pid}/status`, 'utf8'))
    return match ? Number(match[1]) * 1024 : undefined
  } catch {
    return undefined
  }
}
