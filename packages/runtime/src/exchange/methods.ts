/**
 * The v1.0 JSON-RPC method table. Methods whose capability is off answer the errors the
 * specification prescribes for that capability.
 * @module
 */
import type { AgentCard } from '../wire/types.js'
import { A2AError } from '../wire/a2a-error.js'
import { cancelTaskParams, getTaskParams, listTasksParams, parseParams, sendMessageParams, subscribeParams, tenantOnlyParams } from '../wire/params.js'
import type { ExchangeCore } from './core.js'
import { acceptMessage, answerSend, type Caller } from './send-message.js'
import { sendStreamingMessage, subscribeToTask, type StreamingOptions } from './streaming.js'
import { cancelTask, getTask, listTasks } from './task-queries.js'

export type MethodHandler = (core: ExchangeCore, caller: Caller, params: unknown) => Promise<unknown>

export interface MethodOptions {
  extendedCard: ((caller: Caller) => AgentCard | Promise<AgentCard>) | undefined
  /** Undefined when streaming is turned off. */
  streaming: StreamingOptions | undefined
}

const noStreaming = () =>
  Promise.reject(A2AError.unsupported('Streaming is not enabled on this agent (capabilities.streaming is false); call SendMessage and poll GetTask'))

const noPush = () =>
  Promise.reject(
    new A2AError('PUSH_NOTIFICATION_NOT_SUPPORTED', 'Push notifications are not enabled on this agent (capabilities.pushNotifications is false); poll GetTask instead'),
  )

export function methodTable(options: MethodOptions): Record<string, MethodHandler> {
  const { streaming } = options
  return {
    SendMessage: async (core, caller, raw) => {
      const params = parseParams(sendMessageParams, raw)
      return answerSend(core, await acceptMessage(core, caller, params), params)
    },
    GetTask: (core, caller, raw) => getTask(core, caller.viewer, parseParams(getTaskParams, raw)),
    ListTasks: (core, caller, raw) => listTasks(core, caller.viewer, parseParams(listTasksParams, raw)),
    CancelTask: (core, caller, raw) => cancelTask(core, caller.viewer, parseParams(cancelTaskParams, raw)),
    SendStreamingMessage: streaming
      ? (core, caller, raw) => sendStreamingMessage(core, caller, parseParams(sendMessageParams, raw), streaming)
      : noStreaming,
    SubscribeToTask: streaming ? (core, caller, raw) => subscribeToTask(core, caller, parseParams(subscribeParams, raw), streaming) : noStreaming,
    CreateTaskPushNotificationConfig: noPush,
    GetTaskPushNotificationConfig: noPush,
    ListTaskPushNotificationConfigs: noPush,
    DeleteTaskPushNotificationConfig: noPush,
    GetExtendedAgentCard: async (_core, caller, raw) => {
      parseParams(tenantOnlyParams, raw)
      if (!options.extendedCard) {
        throw A2AError.unsupported('This agent has no extended agent card (capabilities.extendedAgentCard is false)')
      }
      return options.extendedCard(caller)
    },
  }
}

/** -32601, with a pointer to the v1.0 name when a v0.x slash method was sent. */
export function unknownMethod(method: string, known: readonly string[]): A2AError {
  const hint = method.includes('/')
    ? `v0.x method names are not served; this server speaks A2A 1.0, whose methods are ${known.join(', ')}`
    : `Methods: ${known.join(', ')}`
  return A2AError.methodNotFound(method, hint)
}
