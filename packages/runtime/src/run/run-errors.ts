/**
 * Local errors a skill handler sees when its run can no longer change the task. They never cross
 * the wire: the caller sees the task's stored state instead.
 * @module
 */

/** The deadline a run exceeded; the cause of a {@link TaskTimeoutError}. */
export class DeadlineExceededError extends Error {
  constructor(readonly timeoutMs: number) {
    super(`deadline of ${timeoutMs} ms exceeded`)
    this.name = 'DeadlineExceededError'
  }
}

export class TaskTimeoutError extends Error {
  constructor(taskId: string, deadline: DeadlineExceededError) {
    super(`task ${taskId} timed out; it was failed and takes no more changes`, { cause: deadline })
    this.name = 'TaskTimeoutError'
  }
}

export class TaskCanceledError extends Error {
  constructor(taskId: string) {
    super(`task ${taskId} was canceled; it takes no more changes`)
    this.name = 'TaskCanceledError'
  }
}

/** The handler already settled or paused the task in this run. */
export class RunEndedError extends Error {
  constructor(taskId: string, state: string) {
    super(`task ${taskId} is already ${state}; a run ends at complete, fail, reject, requireInput or requireAuth`)
    this.name = 'RunEndedError'
  }
}
