/**
 * Validation of what the server sends against the official A2A v1.0.0 JSON Schema
 * (`a2a-v1.0.0.schema.json` beside this file: generated from the specification's a2a.proto,
 * a2aproject/A2A tag v1.0.0, Apache License 2.0). Tests run every payload they receive through
 * {@link assertWire}, so the wire shape cannot drift from the specification.
 * @module
 */
import { readFileSync } from 'node:fs'
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js'
import addFormats from 'ajv-formats'
import type { WireCheck } from './binding-client.js'

/** The schema's definitions, by the names used here (its titles without spaces). */
export type WireType =
  | 'AgentCard'
  | 'Task'
  | 'Message'
  | 'StreamResponse'
  | 'SendMessageResponse'
  | 'ListTasksResponse'
  | 'TaskPushNotificationConfig'
  | 'ListTaskPushNotificationConfigsResponse'

let validators: Map<string, ValidateFunction> | undefined

function compile(): Map<string, ValidateFunction> {
  const schema = JSON.parse(readFileSync(new URL('./a2a-v1.0.0.schema.json', import.meta.url), 'utf8')) as { definitions: Record<string, object> }
  const ajv = new Ajv2020({ strict: false, allErrors: true })
  addFormats.default(ajv)
  const names = new Map<string, string>()
  for (const [title, definition] of Object.entries(schema.definitions)) {
    const name = title.replaceAll(' ', '')
    const id = ['Struct', 'Timestamp', 'Value'].includes(name) ? `google.protobuf.${name}.jsonschema.json` : `lf.a2a.v1.${name}.jsonschema.json`
    ajv.addSchema({ ...definition, $id: id })
    names.set(name, id)
  }
  return new Map([...names].map(([name, id]) => [name, ajv.getSchema(id)!]))
}

/** Throws, naming every violation, unless `value` is a valid `type` on the wire. Returns the value. */
export function assertWire<T>(type: WireType, value: T): T {
  validators ??= compile()
  return assertValid(validators.get(type), type, value)
}

/** Throws, naming every violation, unless `validate` (the schema's definition `type`) passes `value`. Shared with the 0.3 check. */
export function assertValid<T>(validate: ValidateFunction | undefined, type: string, value: T): T {
  if (!validate) throw new Error(`The A2A schema has no definition ${type}`)
  if (!validate(value)) {
    const problems = validate.errors!.map((e) => `${e.instancePath || '/'} ${e.message}${e.params ? ` ${JSON.stringify(e.params)}` : ''}`)
    throw new Error(`Not a valid ${type}: ${problems.join('; ')}\n${JSON.stringify(value).slice(0, 2000)}`)
  }
  return value
}

/** What each method answers, by schema definition; undefined for an empty answer (Delete). */
const RESULT_TYPES: Record<string, WireType | undefined> = {
  SendMessage: 'SendMessageResponse',
  GetTask: 'Task',
  ListTasks: 'ListTasksResponse',
  CancelTask: 'Task',
  CreateTaskPushNotificationConfig: 'TaskPushNotificationConfig',
  GetTaskPushNotificationConfig: 'TaskPushNotificationConfig',
  ListTaskPushNotificationConfigs: 'ListTaskPushNotificationConfigsResponse',
  DeleteTaskPushNotificationConfig: undefined,
  GetExtendedAgentCard: 'AgentCard',
}

/** Checks each result against its method's response type and each stream event as a StreamResponse. */
export const wireCheck: WireCheck = {
  result(method, result) {
    const type = RESULT_TYPES[method]
    if (type) assertWire(type, result)
    else if (JSON.stringify(result) !== '{}') throw new Error(`${method} should answer {} (google.protobuf.Empty), not ${JSON.stringify(result)}`)
  },
  event: (response) => void assertWire('StreamResponse', response),
}
