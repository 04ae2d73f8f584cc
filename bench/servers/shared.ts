/** Constants the bench driver and its server processes agree on. */
export const BENCH_TOKEN = 'bench-token'
/** The COMPLETED task the ceiling servers (raw.ts, raw-grpc.ts) answer, of the shape our exchange returns. */
export const fixedTask = () => ({
  id: '6f1c1a52-3f0e-4c55-9d55-0a6f7cbbd2d1',
  contextId: '0b5e7f6c-0c55-4d0e-8e43-61b3a7d5c0aa',
  status: { state: 'TASK_STATE_COMPLETED', timestamp: new Date().toISOString() },
  artifacts: [{ artifactId: 'a8d7c0d6-4e7a-4f4e-9b0e-9a4b7f3c2e11', name: 'result', parts: [{ text: 'ok', mediaType: 'text/plain' }] }],
  history: [{ messageId: 'm', role: 'ROLE_USER', parts: [{ text: 'hello' }] }],
})

/** A second caller's token (heavy-requests.bench.ts). */
export const LIGHT_TOKEN = 'bench-token-light'

/**
 * Wall-clock ms with sub-ms precision. The driver and its servers share this machine's clock, so
 * a time stamped in one process can be subtracted from a time read in another.
 */
export const wallMs = (): number => performance.timeOrigin + performance.now()

/**
 * The listen backlog bench servers use: BENCH_BACKLOG, else the runtime's default
 * (DEFAULT_LISTEN_BACKLOG, not imported: the SDK's server must not load our runtime).
 */
export const listenBacklog = (): number => Number(process.env.BENCH_BACKLOG || 65535)

/**
 * A bench server's end: SIGTERM closes every connection and the server (after `before`, e.g. an
 * exchange's shutdown), and a driver killed outright (SIGKILL, OOM), which cannot send it, is
 * noticed as this process being orphaned.
 */
export function stopWithDriver(server: { closeAllConnections(): void; close(done: () => void): unknown }, before?: () => Promise<void>): void {
  process.once('SIGTERM', async () => {
    await before?.()
    server.closeAllConnections()
    server.close(() => process.exit(0))
  })
  const parent = process.ppid
  setInterval(() => {
    if (process.ppid !== parent) process.exit(1)
  }, 1000).unref()
}
