// The subset of autocannon 8's programmatic API the bench uses (the package ships no types).
declare module 'autocannon' {
  import type { EventEmitter } from 'node:events'

  namespace autocannon {
    interface Request {
      method?: string
      path?: string
      headers?: Record<string, string>
      body?: string | Buffer
      setupRequest?: (request: Request, context: Record<string, unknown>) => Request | undefined
      onResponse?: (status: number, body: string, context: Record<string, unknown>, headers: Record<string, string>) => void
    }

    interface Options {
      url: string
      method?: string
      headers?: Record<string, string>
      body?: string
      connections?: number
      duration?: number
      timeout?: number
      requests?: Request[]
    }

    interface Histogram {
      average: number
      mean: number
      stddev: number
      min: number
      max: number
      total: number
      p50: number
      p90: number
      p99: number
    }

    interface Result {
      duration: number
      errors: number
      timeouts: number
      mismatches: number
      non2xx: number
      '2xx': number
      latency: Histogram & { totalCount: number }
      requests: Histogram & { sent: number }
      throughput: Histogram
    }

    interface Instance extends EventEmitter {
      stop(): void
    }
  }

  function autocannon(options: autocannon.Options, callback: (error: Error | null, result: autocannon.Result) => void): autocannon.Instance

  export default autocannon
}
