/**
 * The 0.3 JSON-RPC methods, each as a call of the 1.0 method table: params decoded on the way in,
 * the answer encoded on the way out. No method body of its own, so a task is the same task
 * whichever generation started or reads it.
 * @module
 */
import type { AgentCard, Message, Task, TaskPushNotificationConfig } from '../wire/types.js'
import { A2AError } from '../wire/a2a-error.js'
import { cardToV03 } from './card-v03.js'
import { pushRefFromV03, sendParamsFromV03, setPushParamsFromV03 } from './from-v03.js'
import { pushConfigToV03, sendResultToV03, taskToV03, type StreamEnd } from '../wire/to-v03.js'

/** Calls a 1.0 method as the request's caller. */
export type Invoke = (method: string, params: unknown) => Promise<unknown>

export interface V03Method {
  run(invoke: Invoke, params: unknown): Promise<unknown>
  /** Streaming methods: where the stream ends, which is where a status update is `final`. */
  stream?: StreamEnd
}

/** 1.0 list pages are read to the end: 0.3 answers the whole list. Bounded, as a task's configs are. */
const MAX_LIST_PAGES = 100

export const V03_METHODS: Readonly<Record<string, V03Method>> = Object.freeze({
  'message/send': {
    run: async (invoke, params) => sendResultToV03((await invoke('SendMessage', sendParamsFromV03(params))) as { task: Task } | { message: Message }),
  },
  'message/stream': { run: (invoke, params) => invoke('SendStreamingMessage', sendParamsFromV03(params)), stream: 'interrupted' },
  'tasks/get': { run: async (invoke, params) => taskToV03((await invoke('GetTask', params)) as Task) },
  'tasks/cancel': { run: async (invoke, params) => taskToV03((await invoke('CancelTask', params)) as Task) },
  'tasks/resubscribe': { run: (invoke, params) => invoke('SubscribeToTask', params), stream: 'terminal' },
  'tasks/pushNotificationConfig/set': {
    run: async (invoke, params) => pushConfigToV03((await invoke('CreateTaskPushNotificationConfig', setPushParamsFromV03(params))) as TaskPushNotificationConfig),
  },
  'tasks/pushNotificationConfig/get': {
    run: async (invoke, params) => {
      const ref = pushRefFromV03(params)
      if (ref.id !== undefined) return pushConfigToV03((await invoke('GetTaskPushNotificationConfig', ref)) as TaskPushNotificationConfig)
      // 0.3 also allowed `{id}` alone: the task's config, when it has exactly one.
      const configs = await listAll(invoke, ref.taskId)
      if (configs.length !== 1) {
        throw A2AError.invalidParams(
          'pushNotificationConfigId',
          `is required: task ${String(ref.taskId)} has ${configs.length} push configs; name one (tasks/pushNotificationConfig/list shows their ids)`,
        )
      }
      return pushConfigToV03(configs[0]!)
    },
  },
  'tasks/pushNotificationConfig/list': {
    run: async (invoke, params) => (await listAll(invoke, pushRefFromV03(params).taskId)).map(pushConfigToV03),
  },
  'tasks/pushNotificationConfig/delete': {
    run: async (invoke, params) => {
      const ref = pushRefFromV03(params)
      if (ref.id === undefined) throw A2AError.invalidParams('pushNotificationConfigId', 'is required: the id of the config to delete')
      await invoke('DeleteTaskPushNotificationConfig', ref)
      return null
    },
  },
  'agent/getAuthenticatedExtendedCard': { run: async (invoke) => cardToV03((await invoke('GetExtendedAgentCard', {})) as AgentCard) },
} satisfies Record<string, V03Method>)

async function listAll(invoke: Invoke, taskId: unknown): Promise<TaskPushNotificationConfig[]> {
  const configs: TaskPushNotificationConfig[] = []
  let pageToken: string | undefined
  for (let page = 0; page < MAX_LIST_PAGES; page++) {
    const answer = (await invoke('ListTaskPushNotificationConfigs', { taskId, ...(pageToken ? { pageToken } : {}) })) as {
      configs?: TaskPushNotificationConfig[]
      nextPageToken?: string
    }
    configs.push(...(answer.configs ?? []))
    pageToken = answer.nextPageToken
    if (!pageToken) break
  }
  return configs
}
