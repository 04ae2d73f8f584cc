/**
 * The v1.0 JSON-RPC method table. Methods whose capability is off answer the errors the
 * specification prescribes for that capability.
 * @module
 */
import type { AgentCard } from '../wire/types.js'
import { A2AError } from '../wire/a2a-error.js'
import type { Check } from '../wire/check.js'
import { cancelTaskParams, getTaskParams, listTasksParams, parseParams, sendMessageParams, subscribeParams, tenantOnlyParams } from '../wire/params.js'
import { createPushConfig, deletePushConfig, getPushConfig, listPushConfigs, type PushConfigOptions } from './push-configs.js'
import { createPushConfigParams, listPushConfigsParams, pushConfigRefParams } from '../push/push-params.js'
import type { ExchangeCore } from '../run/exchange-core.js'
import { pushOnSend } from './push-on-send.js'
import { acceptMessage, answerSend, type AcceptHooks, type Caller } from './send-message.js'
import { sendStreamingMessage, subscribeToTask, type StreamingOptions } from './streaming.js'
import { cancelTask, getTask, listTasks } from './task-queries.js'

export type MethodHandler = (core: ExchangeCore, caller: Caller, params: unknown) => Promise<unknown>

export interface MethodOptions {
  extendedCard: ((caller: Caller, baseUrl: string) => Promise<AgentCard>) | undefined
  /** Undefined when streaming is turned off. */
  streaming: StreamingOptions | undefined
  /** Undefined when push notifications are turned off. */
  push: PushConfigOptions | undefined
}

const noStreaming = () =>
  Promise.reject(A2AError.unsupported('Streaming is not enabled on this agent (capabilities.streaming is false); call SendMessage and poll GetTask'))

const noPush = () =>
  Promise.reject(
    new A2AError('PUSH_NOTIFICATION_NOT_SUPPORTED', 'Push notifications are not enabled on this agent (capabilities.pushNotifications is false); poll GetTask instead'),
  )

/** A send's hooks when it has none: one object for all of them (acceptMessage only reads it). */
const NO_HOOKS: AcceptHooks = Object.freeze({})

export function methodTable(options: MethodOptions): Record<string, MethodHandler> {
  const { streaming, push } = options
  return {
    SendMessage: async (core, caller, raw) => {
      const params = parse(core, sendMessageParams, raw)
      // Awaited only for a config to check: each await is a turn of the microtask queue.
      const attachPush = params.configuration?.taskPushNotificationConfig ? await pushOnSend(core, params, push) : undefined
      return answerSend(core, await acceptMessage(core, caller, params, attachPush ? { attachPush } : NO_HOOKS), params)
    },
    GetTask: (core, caller, raw) => getTask(core, caller.viewer, parse(core, getTaskParams, raw)),
    ListTasks: (core, caller, raw) => listTasks(core, caller.viewer, parse(core, listTasksParams, raw)),
    CancelTask: (core, caller, raw) => cancelTask(core, caller.viewer, parse(core, cancelTaskParams, raw)),
    SendStreamingMessage: streaming
      ? async (core, caller, raw) => {
          const params = parse(core, sendMessageParams, raw)
          return sendStreamingMessage(core, caller, params, streaming, await pushOnSend(core, params, push))
        }
      : noStreaming,
    SubscribeToTask: streaming ? (core, caller, raw) => subscribeToTask(core, caller, parse(core, subscribeParams, raw), streaming) : noStreaming,
    CreateTaskPushNotificationConfig: push
      ? (core, caller, raw) => createPushConfig(core, caller, parse(core, createPushConfigParams, raw), push)
      : noPush,
    GetTaskPushNotificationConfig: push ? (core, caller, raw) => getPushConfig(core, caller, parse(core, pushConfigRefParams, raw)) : noPush,
    ListTaskPushNotificationConfigs: push ? (core, caller, raw) => listPushConfigs(core, caller, parse(core, listPushConfigsParams, raw)) : noPush,
    DeleteTaskPushNotificationConfig: push ? (core, caller, raw) => deletePushConfig(core, caller, parse(core, pushConfigRefParams, raw)) : noPush,
    GetExtendedAgentCard: async (core, caller, raw) => {
      parse(core, tenantOnlyParams, raw)
      if (!options.extendedCard) {
        throw new A2AError('EXTENDED_AGENT_CARD_NOT_CONFIGURED', 'This agent has no extended agent card (capabilities.extendedAgentCard is false); read its public card')
      }
      return options.extendedCard(caller, caller.baseUrl ?? 'http://localhost')
    },
  }
}

/** Parses a method's params; unknown fields that look like typos of known ones are logged. */
function parse<T>(core: ExchangeCore, check: Check<T>, raw: unknown): T {
  return parseParams(check, raw, (nearMiss) => core.logger.warn(`a2a: ${nearMiss}`))
}

/** -32601, with a pointer to the v1.0 name when a v0.x slash method was sent. */
export function unknownMethod(method: string, known: readonly string[]): A2AError {
  const hint = method.includes('/')
    ? `v0.x method names are not served; this server speaks A2A 1.0, whose methods are ${known.join(', ')}`
    : `Methods: ${known.join(', ')}`
  return A2AError.methodNotFound(method, hint)
}
