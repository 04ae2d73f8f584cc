import { describe, expect, it } from 'vitest'
import { assertWireV03 } from '../testing/wire-schema-v03.js'
import { TASK_STATES } from './types.js'
import { sendParamsFromV03 } from '../compat-v03/from-v03.js'
import { stateToV03, streamEventToV03, taskToV03 } from './to-v03.js'

describe('1.0 → 0.3 shapes', () => {
  it('names every 1.0 task state as a 0.3 TaskState', () => {
    const states = TASK_STATES.map(stateToV03)
    expect(states).toEqual(['submitted', 'working', 'completed', 'failed', 'canceled', 'input-required', 'rejected', 'auth-required'])
    for (const state of states) assertWireV03('TaskState', state)
    expect(stateToV03('TASK_STATE_UNSPECIFIED')).toBe('unknown')
  })

  it('carries a non-object data part under value, since 0.3 data parts hold objects', () => {
    const task = taskToV03({ id: 't', contextId: 'c', status: { state: 'TASK_STATE_COMPLETED' }, artifacts: [{ artifactId: 'a', parts: [{ data: [1, 2] }, { data: 'x' }] }] })
    expect(assertWireV03('Task', task).artifacts).toEqual([
      {
        artifactId: 'a',
        parts: [
          { kind: 'data', data: { value: [1, 2] } },
          { kind: 'data', data: { value: 'x' } },
        ],
      },
    ])
  })

  it('marks a status update final where the stream ends: at a pause only for message/stream', () => {
    const paused = { statusUpdate: { taskId: 't', contextId: 'c', status: { state: 'TASK_STATE_AUTH_REQUIRED' as const } } }
    expect(assertWireV03('TaskStatusUpdateEvent', streamEventToV03(paused, 'interrupted'))).toMatchObject({ final: true, status: { state: 'auth-required' } })
    expect(streamEventToV03(paused, 'terminal')).toMatchObject({ final: false })
  })
})

describe('0.3 → 1.0 params', () => {
  it("turns blocking: false into returnImmediately and a push config's one scheme into 1.0 authentication", () => {
    const params = sendParamsFromV03({
      message: { kind: 'message', messageId: 'm', role: 'user', parts: [{ kind: 'text', text: 'hi', metadata: { a: 1 } }] },
      configuration: { blocking: false, historyLength: 2, pushNotificationConfig: { url: 'https://hooks.example/a', authentication: { schemes: ['Bearer'], credentials: 'c' } } },
    })
    expect(params).toEqual({
      message: { messageId: 'm', role: 'ROLE_USER', parts: [{ metadata: { a: 1 }, text: 'hi' }] },
      configuration: {
        historyLength: 2,
        returnImmediately: true,
        taskPushNotificationConfig: { url: 'https://hooks.example/a', authentication: { scheme: 'Bearer', credentials: 'c' } },
      },
    })
  })

  it('names the field and what to send for a file part with neither or both of bytes and uri', () => {
    const send = (file: unknown) => () => sendParamsFromV03({ message: { messageId: 'm', role: 'user', parts: [{ kind: 'file', file }] } })
    expect(send({ name: 'a' })).toThrow(/message\.parts\[0\]\.file: must have exactly one of "bytes" \(base64\) or "uri"/)
    expect(send({ bytes: 'YQ==', uri: 'https://files.example/a' })).toThrow(/exactly one/)
    expect(send('a')).toThrow(/message\.parts\[0\]\.file: must be an object/)
  })
})
