/**
 * A push config sent inside SendMessage's configuration: checked (SSRF guard included) before
 * anything is written, stored on the task before its run starts, and sent the task snapshot first.
 * @module
 */
import { isDeepStrictEqual } from 'node:util'
import type { Caller, PushConfigOptions } from './method.js'
import { attachPushConfig, checkSendPushConfig, type CheckedPushConfig } from './push-configs.js'
import type { PushConfigRecord } from '../store/store.js'
import { A2AError } from '../wire/a2a-error.js'
import type { SendMessageParams } from '../wire/params.js'
import type { ExchangeCore } from '../run/exchange-core.js'
import type { AcceptHooks } from './send-message.js'
import { toWireTask } from '../run/to-wire.js'

const samePushConfig = (held: PushConfigRecord, sent: CheckedPushConfig): boolean =>
  (sent.id === undefined || sent.id === held.id) && held.url === sent.url && held.token === sent.token && isDeepStrictEqual(held.authentication, sent.authentication)

export async function pushOnSend(core: ExchangeCore, caller: Caller, params: SendMessageParams, push: PushConfigOptions | undefined): Promise<AcceptHooks['attachPush']> {
  if (!params.configuration?.taskPushNotificationConfig) return undefined
  if (!push) {
    throw new A2AError(
      'PUSH_NOTIFICATION_NOT_SUPPORTED',
      'Push notifications are not enabled on this agent (capabilities.pushNotifications is false); send the message without configuration.taskPushNotificationConfig and poll GetTask',
    )
  }
  const checked = (await checkSendPushConfig(params, push))!
  return async (record, options) => {
    // A retried send carries its config again: registered once, however often it is retried.
    if (options?.repeat && (await core.store.listPushConfigs(record.id)).some((held) => samePushConfig(held, checked))) return
    await attachPushConfig(core, record, checked, push, caller.generation)
    void core.push?.notify({ taskId: record.id, version: record.version, response: { task: toWireTask(record) } })
  }
}
