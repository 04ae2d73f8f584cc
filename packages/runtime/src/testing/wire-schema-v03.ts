/**
 * Validation of what the server sends to A2A 0.3 clients against the official A2A v0.3.0 JSON
 * Schema (`a2a-v0.3.0.schema.json` beside this file: a2aproject/A2A tag v0.3.0, Apache License
 * 2.0). Its definitions include the JSON-RPC responses, so whole envelopes are checked.
 * @module
 */
import { readFileSync } from 'node:fs'
import { Ajv, type ValidateFunction } from 'ajv'
import addFormats from 'ajv-formats'
import { assertValid } from './wire-schema.js'

let ajv: Ajv | undefined

function validator(name: string): ValidateFunction | undefined {
  if (!ajv) {
    const schema = JSON.parse(readFileSync(new URL('./a2a-v0.3.0.schema.json', import.meta.url), 'utf8')) as object
    ajv = new Ajv({ strict: false, allErrors: true })
    addFormats.default(ajv)
    ajv.addSchema({ ...schema, $id: 'a2a-v0.3.0' })
  }
  return ajv.getSchema(`a2a-v0.3.0#/definitions/${name}`)
}

/** Throws, naming every violation, unless `value` is a valid 0.3 `definition` (e.g. `Task`, `GetTaskSuccessResponse`). */
export function assertWireV03<T>(definition: string, value: T): T {
  return assertValid(validator(definition), definition, value)
}

/** The success response each 0.3 method answers, by schema definition. */
export const V03_RESPONSES: Record<string, string> = {
  'message/send': 'SendMessageSuccessResponse',
  'message/stream': 'SendStreamingMessageSuccessResponse',
  'tasks/get': 'GetTaskSuccessResponse',
  'tasks/cancel': 'CancelTaskSuccessResponse',
  'tasks/resubscribe': 'SendStreamingMessageSuccessResponse',
  'tasks/pushNotificationConfig/set': 'SetTaskPushNotificationConfigSuccessResponse',
  'tasks/pushNotificationConfig/get': 'GetTaskPushNotificationConfigSuccessResponse',
  'tasks/pushNotificationConfig/list': 'ListTaskPushNotificationConfigSuccessResponse',
  'tasks/pushNotificationConfig/delete': 'DeleteTaskPushNotificationConfigSuccessResponse',
  'agent/getAuthenticatedExtendedCard': 'GetAuthenticatedExtendedCardSuccessResponse',
}

/** Checks one JSON-RPC response body of `method`: its success definition, or JSONRPCErrorResponse. */
export function assertV03Response<T extends { error?: unknown }>(method: string, body: T): T {
  if (body.error !== undefined) return assertWireV03('JSONRPCErrorResponse', body)
  const definition = V03_RESPONSES[method]
  if (!definition) throw new Error(`No 0.3 response definition for ${method}`)
  return assertWireV03(definition, body)
}
