import { describe, expect, it } from 'vitest'
import { assertWire, wireCheck } from './wire-schema.js'

const task = { id: 't1', contextId: 'c1', status: { state: 'TASK_STATE_COMPLETED', timestamp: '2026-01-31T12:00:00.000Z' } }

describe('the A2A v1.0.0 JSON Schema check', () => {
  it('passes v1.0 wire shapes', () => {
    expect(assertWire('Task', task)).toBe(task)
    wireCheck.result('SendMessage', { task })
    wireCheck.event({ statusUpdate: { taskId: 't1', contextId: 'c1', status: task.status } })
  })

  it('fails pre-1.0 and misspelt shapes, naming what is wrong', () => {
    expect(() => assertWire('Task', { ...task, kind: 'task' })).toThrow(/Not a valid Task: .*additional/)
    expect(() => assertWire('Task', { ...task, status: { state: 'completed' } })).toThrow(/\/status\/state/)
    expect(() => wireCheck.result('GetTask', { task })).toThrow(/Not a valid Task/)
    expect(() => wireCheck.result('DeleteTaskPushNotificationConfig', { ok: true })).toThrow('google.protobuf.Empty')
  })
})
