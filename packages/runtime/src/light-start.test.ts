import { execFile } from 'node:child_process'
import { promisify } from 'node:util'
import { expect, it } from 'vitest'

// The packages an entry must not load unless entity tools or MCP are used, as they sit under node_modules.
// zod among them: the wire params are checked by hand-written checks (wire/check.ts), and zod's core loads ~64 locale modules.
const HEAVY = ['@modelcontextprotocol/sdk', 'ajv', 'ajv-formats', 'zod-to-json-schema', 'zod']

// Every module the child loads: ESM through a resolve hook (messages arrive in order, so the
// sentinel import comes last), CommonJS from require's cache.
const probe = (entries: string[], use: string) => `
  import { createRequire, register } from 'node:module'
  import { MessageChannel } from 'node:worker_threads'
  const hooks = 'let port; export function initialize(data) { port = data.port }' +
    'export async function resolve(specifier, context, next) { const resolved = await next(specifier, context); port.postMessage(resolved.url); return resolved }'
  const { port1, port2 } = new MessageChannel()
  const urls = []
  const sentinel = 'data:text/javascript,export{}//' + Math.random()
  const drained = new Promise((resolve) => port1.on('message', (url) => (url === sentinel ? resolve() : urls.push(url))))
  register('data:text/javascript,' + encodeURIComponent(hooks), { data: { port: port2 }, transferList: [port2] })
  const modules = {}
  for (const entry of ${JSON.stringify(entries)}) Object.assign(modules, await import(entry))
  ${use}
  await import(sentinel)
  await drained
  port1.close()
  const paths = [...urls.map((url) => decodeURIComponent(url)), ...Object.keys(createRequire(import.meta.url).cache)]
  const heavy = ${JSON.stringify(HEAVY)}
  console.log(JSON.stringify(heavy.filter((name) => paths.some((path) => path.includes('/node_modules/' + name + '/')))))
`

async function heavyLoadedBy(entries: string[], use = ''): Promise<string[]> {
  const { stdout } = await promisify(execFile)(process.execPath, ['--conditions=@a2a-agent/source', '--import', 'tsx', '--input-type=module', '-e', probe(entries, use)], {
    cwd: new URL('../', import.meta.url),
  })
  return JSON.parse(stdout.trim().split('\n').at(-1)!)
}

const exchangeWithTools = `
  const tool = { name: 'notes_list', entity: 'notes', operation: 'list', description: 'Lists notes', inputSchema: { type: 'object', properties: {} }, run: () => [] }
  const exchange = modules.createExchange({
    card: { name: 'Light', description: 'A light start', version: '0.0.0' },
    resolvePrincipal: () => ({ owner: 'alice' }),
    tools: modules.createToolRegistry([tool]),
  })
`

it('an app without entity tools loads neither the MCP SDK, nor ajv, nor zod', async () => {
  const entries = ['@a2a-agent/runtime', '@a2a-agent/runtime/express']
  const withoutTools = `
    const skill = modules.defineSkill({ id: 'echo', description: 'echoes', handler: (ctx) => ctx.complete(ctx.text) })
    const exchange = modules.createExchange({ skills: [skill], card: { name: 'Light', description: 'A light start', version: '0.0.0' }, resolvePrincipal: () => ({ owner: 'alice' }) })
    modules.a2aRouter(exchange)
  `
  expect(await heavyLoadedBy(entries, withoutTools)).toEqual([])
  // Entity tools bring ajv (they validate their arguments with it); A2A alone needs no MCP.
  expect(await heavyLoadedBy(entries, `${exchangeWithTools} modules.a2aRouter(exchange, { mcp: false })`)).toEqual(['ajv'])
  // Serving MCP loads its SDK, and what the SDK itself brings.
  const callMcp = `
    const { default: express } = await import('express')
    const server = modules.createHttpServer(express().use(modules.a2aRouter(exchange))).listen(0, '127.0.0.1')
    await new Promise((resolve) => server.once('listening', resolve))
    const response = await fetch('http://127.0.0.1:' + server.address().port + '/mcp', {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    })
    if ((await response.json()).result.tools[0].name !== 'notes_list') throw new Error('tools/list did not list the tool')
    server.close()
  `
  const withMcp = await heavyLoadedBy(entries, `${exchangeWithTools} ${callMcp}`)
  // zod among them, which shows the probe sees it when it loads.
  expect(withMcp).toEqual(expect.arrayContaining(['@modelcontextprotocol/sdk', 'ajv', 'zod']))
}, 60_000)
