/**
 * Params of the four push-config methods. Create reuses the push config schema SendMessage
 * validates `configuration.taskPushNotificationConfig` with, so both accept the same shape.
 * Parse with `parseParams` from wire/params.ts: failures become -32602 naming the field.
 * @module
 */
import { z } from 'zod'
import { nonEmpty, pushConfig, tenant } from '../wire/params.js'

/** CreateTaskPushNotificationConfig: a flat TaskPushNotificationConfig whose taskId is required. */
export const createPushConfigParams = pushConfig.extend({ taskId: nonEmpty })

/** GetTaskPushNotificationConfig and DeleteTaskPushNotificationConfig. */
export const pushConfigRefParams = z.object({ taskId: nonEmpty, id: nonEmpty, tenant })
export const getPushConfigParams = pushConfigRefParams
export const deletePushConfigParams = pushConfigRefParams

/** ListTaskPushNotificationConfigs. */
export const listPushConfigsParams = z.object({
  taskId: nonEmpty,
  pageSize: z.number().int('must be an integer').min(1, 'must be 1..100').max(100, 'must be 1..100').optional(),
  pageToken: z.string().optional(),
  tenant,
})

export type CreatePushConfigParams = z.output<typeof createPushConfigParams>
export type PushConfigRefParams = z.output<typeof pushConfigRefParams>
export type ListPushConfigsParams = z.output<typeof listPushConfigsParams>
