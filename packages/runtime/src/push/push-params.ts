/**
 * Params of the four push-config methods. Create reuses the push config schema SendMessage
 * validates `configuration.taskPushNotificationConfig` with, so both accept the same shape.
 * Parse with `parseParams` from wire/params.ts: failures become -32602 naming the field.
 * @module
 */
import { z } from 'zod'
import { nonEmpty, pageSize, pushConfigShape, tenant } from '../wire/params.js'
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
  pageSize: pageSize.optional(),
  pageToken: z.string().optional(),
  tenant,
})

export type CreatePushConfigParams = z.output<typeof createPushConfigParams>
export type PushConfigRefParams = z.output<typeof pushConfigRefParams>
export type ListPushConfigsParams = z.output<typeof listPushConfigsParams>
