import { spawn } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { expect, it } from 'vitest'
import { freePort } from './free-port.js'

const root = fileURLToPath(new URL('..', import.meta.url))

it('the runtime README example runs as written, in at most 30 lines', async () => {
  const readme = readFileSync(join(root, 'packages/runtime/README.md'), 'utf8')
  const code = /```ts\n([\s\S]*?)```/.exec(readme)![1]!
  expect(code.trimEnd().split('\n').length).toBeLessThanOrEqual(30)
  // Inside the repository, so '@a2a-agent/runtime' resolves to the workspace package.
  const dir = mkdtempSync(join(root, 'test', '.readme-'))
  writeFileSync(join(dir, 'example.ts'), code)
  const port = await freePort()
  const child = spawn(process.execPath, ['--import', 'tsx', join(dir, 'example.ts')], { env: { ...process.env, PORT: String(port) } })
  try {
    const call = async () =>
      fetch(`http://127.0.0.1:${port}/a2a`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', 'A2A-Version': '1.0', Authorization: 'Bearer secret-token' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'SendMessage', params: { message: { messageId: 'm1', role: 'ROLE_USER', parts: [{ text: 'Ada' }] } } }),
      }).then((r) => r.json() as Promise<any>)
    await expect.poll(() => call().catch(() => undefined), { timeout: 10_000, interval: 200 }).toBeDefined()
    const { result } = await call()
    expect(result.task.status.state).toBe('TASK_STATE_COMPLETED')
    expect(result.task.artifacts[0].parts[0].text).toBe("Hello Ada, from alice's agent")
  } finally {
    child.kill('SIGTERM')
    rmSync(dir, { recursive: true, force: true })
  }
})
