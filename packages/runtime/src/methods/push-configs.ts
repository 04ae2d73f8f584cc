/**
 * The push-config methods (Create/Get/List/DeleteTaskPushNotificationConfig) and the SendMessage
 * path (`configuration.taskPushNotificationConfig`). Every method first matches the task against
 * the caller, so another owner's task answers -32001 exactly like an unknown one. A push URL is
 * SSRF-checked at registration; delivery checks it again at connect time.
 * @module
 */
import { randomUUID } from 'node:crypto'
import type { ExchangeCore } from '../run/exchange-core.js'
import { parse, type Caller, type Method, type PushConfigOptions } from './method.js'
import { findVisible } from './task-queries.js'
import type { PushConfigRecord, TaskRecord } from '../store/store.js'
import { A2AError } from '../wire/a2a-error.js'
import type { SendMessageParams } from '../wire/params.js'
import type { TaskPushNotificationConfig } from '../wire/types.js'
import { PushUrlError, checkPushUrl } from '../push/address-guard.js'
import {
  createPushConfigParams,
  listPushConfigsParams,
  pushConfigRefParams,
  type CreatePushConfigParams,
  type ListPushConfigsParams,
  type PushConfigRefParams,
} from '../push/push-params.js'

export const DEFAULT_MAX_PUSH_CONFIGS_PER_TASK = 8

/** A push config as a client sends it (create params, or SendMessage's configuration). */
export interface PushConfigInput {
  id?: string | undefined
  url: string
  token?: string | undefined
  authentication?: { scheme: string; credentials?: string | undefined } | undefined
}

/** A push config whose fields and URL passed the checks, not yet stored. */
export interface CheckedPushConfig {
  id?: string
  url: string
  token?: string
  authentication?: { scheme: string; credentials?: string }
}

const noPush = () =>
  Promise.reject(
    new A2AError('PUSH_NOTIFICATION_NOT_SUPPORTED', 'Push notifications are not enabled on this agent (capabilities.pushNotifications is false); poll GetTask instead'),
  )

export const CreateTaskPushNotificationConfig: Method = ({ push }) =>
  push ? (core, caller, raw) => createPushConfig(core, caller, parse(core, createPushConfigParams, raw), push) : noPush

export const GetTaskPushNotificationConfig: Method = ({ push }) => (push ? (core, caller, raw) => getPushConfig(core, caller, parse(core, pushConfigRefParams, raw)) : noPush)

export const ListTaskPushNotificationConfigs: Method = ({ push }) => (push ? (core, caller, raw) => listPushConfigs(core, caller, parse(core, listPushConfigsParams, raw)) : noPush)

export const DeleteTaskPushNotificationConfig: Method = ({ push }) => (push ? (core, caller, raw) => deletePushConfig(core, caller, parse(core, pushConfigRefParams, raw)) : noPush)

// Configs live as long as their task and every byte is the caller's; bound each field.
const MAX_LENGTH = { id: 256, url: 4096, token: 4096, 'authentication.scheme': 64, 'authentication.credentials': 8192 }

export async function createPushConfig(core: ExchangeCore, caller: Caller, params: CreatePushConfigParams, options: PushConfigOptions): Promise<TaskPushNotificationConfig> {
  const task = await findVisible(core, caller.viewer, params.taskId)
  const checked = await checkPushConfig(params, options, 'params')
  return storePushConfig(core, task, checked, options, caller.generation)
}

export async function getPushConfig(core: ExchangeCore, caller: Caller, params: PushConfigRefParams): Promise<TaskPushNotificationConfig> {
  await findVisible(core, caller.viewer, params.taskId)
  const record = await core.store.getPushConfig(params.taskId, params.id)
  // The spec has no config-not-found error and the SDKs disagree. -32001 would tell the client
  // the task is gone (it is not); -32602 naming params.id points at the input that is wrong.
  if (!record) {
    throw A2AError.invalidParams('params.id', `no push notification config with id ${quote(params.id)} on task ${params.taskId}`)
  }
  return toWireConfig(record)
}

export async function listPushConfigs(
  core: ExchangeCore,
  caller: Caller,
  params: ListPushConfigsParams,
): Promise<{ configs: TaskPushNotificationConfig[]; nextPageToken: string }> {
  await findVisible(core, caller.viewer, params.taskId)
  // A task holds few configs (the per-task bound), so every list is one page and no token is
  // ever issued: pageSize is accepted and ignored, a page token can only be forged.
  if (params.pageToken) {
    throw A2AError.invalidParams('params.pageToken', 'not a page token this server issued (config lists are never paged)')
  }
  const records = await core.store.listPushConfigs(params.taskId)
  return { configs: records.map(toWireConfig), nextPageToken: '' }
}

/** Idempotent: deleting a config that does not exist succeeds. Answers ProtoJSON Empty. */
export async function deletePushConfig(core: ExchangeCore, caller: Caller, params: PushConfigRefParams): Promise<Record<string, never>> {
  await findVisible(core, caller.viewer, params.taskId)
  await core.store.deletePushConfig(params.taskId, params.id)
  return {}
}

/**
 * SendMessage, before anything is written: checks `configuration.taskPushNotificationConfig`
 * (fields and URL), so a refused webhook refuses the whole send. Undefined when none was sent.
 */
export async function checkSendPushConfig(params: SendMessageParams, options: PushConfigOptions): Promise<CheckedPushConfig | undefined> {
  const config = params.configuration?.taskPushNotificationConfig
  if (!config) return undefined
  const prefix = 'params.configuration.taskPushNotificationConfig'
  const target = params.message.taskId
  // The spec leaves taskId empty here: the config goes to the task this message makes or resumes.
  if (config.taskId && config.taskId !== target) {
    throw A2AError.invalidParams(
      `${prefix}.taskId`,
      target
        ? `does not match params.message.taskId ${quote(target)}; leave it empty or send the same id`
        : 'leave it empty: the server assigns the task id and attaches this config to the task it creates',
    )
  }
  return checkPushConfig(config, options, prefix)
}

/**
 * SendMessage, once the task exists: stores the checked config on it (bounded like Create).
 * Call it before the task's first event is published so that event is delivered too.
 */
export async function attachPushConfig(
  core: ExchangeCore,
  task: TaskRecord,
  checked: CheckedPushConfig,
  options: PushConfigOptions,
  generation?: Caller['generation'],
): Promise<TaskPushNotificationConfig> {
  return storePushConfig(core, task, checked, options, generation)
}

/** Field bounds and the SSRF check; violations are -32602 naming `${prefix}.<field>`. */
export async function checkPushConfig(input: PushConfigInput, options: PushConfigOptions, prefix: string): Promise<CheckedPushConfig> {
  const fields: Record<keyof typeof MAX_LENGTH, string | undefined> = {
    id: input.id,
    url: input.url,
    token: input.token,
    'authentication.scheme': input.authentication?.scheme,
    'authentication.credentials': input.authentication?.credentials,
  }
  for (const [field, max] of Object.entries(MAX_LENGTH) as [keyof typeof MAX_LENGTH, number][]) {
    const value = fields[field]
    if (value !== undefined && value.length > max) throw A2AError.invalidParams(`${prefix}.${field}`, `must be at most ${max} characters`)
  }
  try {
    await checkPushUrl(input.url, { allowPrivate: options.allowPrivate, ...(options.lookup ? { lookup: options.lookup } : {}) })
  } catch (error) {
    if (error instanceof PushUrlError) throw A2AError.invalidParams(`${prefix}.url`, error.message)
    throw error
  }
  const checked: CheckedPushConfig = { url: input.url }
  // ProtoJSON's default "" means unset: the server assigns an id.
  if (input.id) checked.id = input.id
  if (input.token !== undefined) checked.token = input.token
  if (input.authentication) {
    const { scheme, credentials } = input.authentication
    checked.authentication = credentials === undefined ? { scheme } : { scheme, credentials }
  }
  return checked
}

/** The wire TaskPushNotificationConfig: unset fields omitted, tenant never echoed. */
export function toWireConfig(record: PushConfigRecord): TaskPushNotificationConfig {
  const wire: TaskPushNotificationConfig = { id: record.id, taskId: record.taskId, url: record.url }
  if (record.token !== undefined) wire.token = record.token
  if (record.authentication) {
    const { scheme, credentials } = record.authentication
    wire.authentication = credentials === undefined ? { scheme } : { scheme, credentials }
  }
  return wire
}

async function storePushConfig(
  core: ExchangeCore,
  task: TaskRecord,
  checked: CheckedPushConfig,
  options: PushConfigOptions,
  generation: Caller['generation'],
): Promise<TaskPushNotificationConfig> {
  const existing = await core.store.listPushConfigs(task.id)
  // Strictly after the task's newest config, so oldest-first is registration order even
  // within one millisecond and the bound never evicts the config just stored.
  const newest = existing.reduce((max, c) => Math.max(max, c.createdAt), -Infinity)
  const record: PushConfigRecord = {
    ...checked,
    id: checked.id ?? randomUUID(),
    taskId: task.id,
    owner: task.owner,
    ...(generation ? { generation } : {}),
    createdAt: Math.max(Date.now(), newest + 1),
  }
  await core.store.putPushConfig(record)
  const max = options.maxPerTask ?? DEFAULT_MAX_PUSH_CONFIGS_PER_TASK
  if (max >= 0) {
    const all = await core.store.listPushConfigs(task.id)
    const doomed = all.filter((c) => c.id !== record.id).slice(0, Math.max(all.length - Math.max(max, 1), 0))
    for (const config of doomed) await core.store.deletePushConfig(task.id, config.id)
  }
  // Retention may have deleted the task (and its configs) after findVisible; a config stored
  // after that would outlive its task, so take it back out.
  if (!(await core.store.get(task.id))) {
    await core.store.deletePushConfig(task.id, record.id)
    throw A2AError.taskNotFound(task.id)
  }
  return toWireConfig(record)
}

const quote = (value: string): string => JSON.stringify(value.length > 100 ? `${value.slice(0, 100)}…` : value)
