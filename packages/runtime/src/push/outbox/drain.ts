/**
 * One drain job: deliver a push config's pending outbox rows, oldest version first, until none
 * is left or one fails. A failure is retried by the engine (the job throws; its retry count is
 * that row's attempt count, and the engine's backoff spaces the attempts); the row belongs to the
 * job's retries meanwhile, so no other wake-up overtakes it. Past its last attempt, or at once when no
 * retry can help (a refused address, a 4xx that is not about timing), the row is dead-lettered
 * and the config goes on with its next row in a fresh job, with a fresh retry budget.
 * @module
 */
import { scrub, type Logger } from '../../log/logger.js'
import { PushUrlError } from '../address-guard.js'
import { continuedSpan } from '../../trace/tracing.js'
import { sentBody } from '../generation.js'
import { describeUrl, type deliverWebhook } from '../webhook-client.js'
import type { DrainJob, OutboxRow, OutboxRows } from './outbox-seams.js'

export interface DrainContext {
  rows: Pick<OutboxRows, 'claim' | 'delivered' | 'stale' | 'failed' | 'dead'>
  deliver: typeof deliverWebhook
  allowPrivate: boolean
  timeoutMs: number
  /** How long a claimed row stays leased: longer than one delivery can take. */
  leaseMs: number
  /** A job that has drained this long hands the rest to a fresh job (pg-boss expires long jobs). */
  maxDrainMs: number
  logger: Logger
  /** Queues a fresh job for the config. */
  requeue(data: DrainJob['data']): Promise<void>
}

interface Failure {
  error: string
  /** Retrying cannot help. */
  final: boolean
}

/** What a drain throws for the engine to retry it: logged already. */
export class DeliveryFailed extends Error {
  override name = 'DeliveryFailed'
}

// Client errors that retrying can cure: a timeout, a conflict, too early, too many requests.
const RETRYABLE_4XX = new Set([408, 409, 425, 429])

export async function drain(job: DrainJob, context: DrainContext): Promise<void> {
  const { rows } = context
  const { taskId, configId } = job.data
  const started = Date.now()
  for (;;) {
    if (Date.now() - started > context.maxDrainMs) return context.requeue(job.data)
    const row = await rows.claim(taskId, configId, job, context.leaseMs)
    // Nothing pending, or the head row is another job's (in flight, or waiting for its retry).
    if (!row) return
    if (row.delivered_version !== null && row.version < row.delivered_version) {
      await rows.stale(row)
      continue
    }
    // In the trace of the write that queued the row: the receiver's traceparent continues the caller's.
    const failure = await continuedSpan('push outbox delivery', row.trace_context, { 'a2a.task_id': taskId }, () => attempt(row, context))
    if (!failure) {
      await rows.delivered(row)
      // This job's retry count belongs to the row just delivered; the next row starts afresh.
      if (job.retryCount > 0) return context.requeue(job.data)
      continue
    }
    const where = `push delivery to ${describeUrl(row.target.url)} (task ${scrub(taskId, 100)}, config ${scrub(configId, 100)}, version ${row.version})`
    const attempts = row.attempts + 1
    if (failure.final || job.retryCount >= job.retryLimit) {
      await rows.dead(row, failure.error)
      log(context.logger, 'error', `a2a: ${where} dead-lettered after ${attempts} attempt(s): ${failure.error}`)
      return context.requeue(job.data)
    }
    await rows.failed(row, failure.error, job)
    log(context.logger, 'warn', `a2a: ${where} failed (attempt ${attempts} of ${job.retryLimit + 1}), will retry: ${failure.error}`)
    // The engine retries this job, with backoff, and the row waits for it.
    throw new DeliveryFailed(`${where} failed: ${failure.error}`)
  }
}

async function attempt(row: OutboxRow, context: DrainContext): Promise<Failure | undefined> {
  try {
    const { status } = await context.deliver(row.target, sentBody(row.target, row.body), { allowPrivate: context.allowPrivate, timeoutMs: context.timeoutMs })
    if (status >= 200 && status <= 299) return undefined
    return { error: `receiver answered HTTP ${status}`, final: status >= 400 && status < 500 && !RETRYABLE_4XX.has(status) }
  } catch (error) {
    return { error: scrub(error, 300), final: error instanceof PushUrlError }
  }
}

// A throwing host logger must not fail a delivery that succeeded.
function log(logger: Logger, level: 'warn' | 'error', line: string): void {
  try {
    logger[level](line)
  } catch {
    // Nowhere left to report it.
  }
}
