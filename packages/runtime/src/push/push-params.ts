/**
 * Params of the four push-config methods. Create reuses the push config schema SendMessage
 * validates `configuration.taskPushNotificationConfig` with, so both accept the same shape.
 * Parse with `parseParams` from wire/params.ts: failures become -32602 naming the field.
 * @module
 */
import { optional, string } from '../wire/check.js'
import { nonEmpty, pageSize, pushConfigShape, tenant, type Parsed } from '../wire/params.js'
import { protoMessage } from '../wire/proto-json.js'

/** CreateTaskPushNotificationConfig: a flat TaskPushNotificationConfig whose taskId is required. */
export const createPushConfigParams = protoMessage('params', { ...pushConfigShape, taskId: nonEmpty })

/** GetTaskPushNotificationConfig and DeleteTaskPushNotificationConfig. */
export const pushConfigRefParams = protoMessage('params', { taskId: nonEmpty, id: nonEmpty, tenant })
export const getPushConfigParams = pushConfigRefParams
export const deletePushConfigParams = pushConfigRefParams

/** ListTaskPushNotificationConfigs. */
export const listPushConfigsParams = protoMessage('params', {
  taskId: nonEmpty,
  pageSize: optional(pageSize),
  pageToken: optional(string),
  tenant,
})

export type CreatePushConfigParams = Parsed<typeof createPushConfigParams>
export type PushConfigRefParams = Parsed<typeof pushConfigRefParams>
export type ListPushConfigsParams = Parsed<typeof listPushConfigsParams>
