/**
 * pg-boss's `createQueue` for processes that start together: its create_queue attaches a partition
 * to the job table, and replicas (or a web, an agent and a worker process) creating queues at once
 * can deadlock there (40P01). The loser's transaction is rolled back whole, so it tries again after
 * a short random wait; a queue already there is not created again.
 * @module
 */

/** The two calls of a started PgBoss this needs. */
export interface QueueCreator {
  getQueue(name: string): Promise<unknown>
  createQueue(name: string, options: { name: string } & Record<string, unknown>): Promise<void>
}

const ATTEMPTS = 5

export async function createQueueOnce(boss: QueueCreator, name: string, options: Record<string, unknown>): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    try {
      if (!(await boss.getQueue(name))) await boss.createQueue(name, { ...options, name })
      return
    } catch (error) {
      if ((error as { code?: string }).code !== '40P01' || attempt === ATTEMPTS) throw error
      await new Promise((resolve) => setTimeout(resolve, 50 * attempt + Math.random() * 100))
    }
  }
}
