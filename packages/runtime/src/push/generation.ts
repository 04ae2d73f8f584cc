/**
 * What a push config is sent, by the generation of the client that set it. A 1.0 config gets each
 * event as its StreamResponse. A 0.3 config gets the task after each event, in the 0.3 shape
 * (`kind: "task"`, lowercase states), as 0.3 senders send it: @a2a-js/sdk 0.3's
 * DefaultPushNotificationSender and a2a-python 0.3's POST the task they load after each event.
 * @module
 */
import type { Store } from '../store/store.js'
import { taskToV03 } from '../wire/to-v03.js'
import type { Task } from '../wire/types.js'
import type { PushEvent } from './push-delivery.js'
import type { WebhookTarget } from './webhook-client.js'

/**
 * The task a 0.3 config is sent for `event`: the event's own snapshot, else the task as stored now
 * (at or past the event's version); undefined once the task is gone (its configs go with it).
 */
export async function taskForV03(event: PushEvent, store: Pick<Store, 'get'>): Promise<Task | undefined> {
  if ('task' in event.response) return event.response.task
  return (await store.get(event.taskId))?.task
}

/** A body the outbox keeps, as sent to `target`: a 0.3 target's `{task}` in the 0.3 shape. */
export function sentBody(target: WebhookTarget, body: unknown): unknown {
  if (target.generation !== '0.3') return body
  return taskToV03((body as { task: Task }).task)
}
