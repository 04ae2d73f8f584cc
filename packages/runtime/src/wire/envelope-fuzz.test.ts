/**
 * Fuzzed request bodies on both bindings and on every store: valid envelopes mutated as text (a
 * character dropped, added or doubled, the text cut short) and shapes around the request limits.
 * Every answer must be one a client can act on: never -32603, never a 5xx other than a 503 with
 * Retry-After. A2A_FUZZ_ENVELOPES sets how many per store (the soak runs 100000 on memory and
 * 20000 on SQLite and PostgreSQL); each run also sends the shapes fuzzing once found.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { defineSkill } from '../skills/skill.js'
import { openDatabase, type TestDatabase } from '../store/prisma/__fixture__/databases.js'
import { PostgresStore } from '../store/sql/postgres/postgres-store.js'
import { SqliteStore } from '../store/sql/sqlite/sqlite-store.js'
import type { Store } from '../store/store.js'
import { seededRandom } from '../testing/seeded-random.js'
import { startTestServer, type TestServer } from '../testing/test-server.js'

const echo = defineSkill({
  id: 'echo',
  description: 'echo',
  handler: async (ctx) => {
    await ctx.artifact({ parts: ctx.text })
  },
})

const AUTH = { Authorization: 'Bearer alice', 'A2A-Version': '1.0', 'Content-Type': 'application/json' }
const soak = Number(process.env.A2A_FUZZ_ENVELOPES) || 0

/** Bodies that once answered -32603: sent first on every store. */
const FOUND = ['"a":1,"b":2', '"jsonrpc":"2.0","id":1,"method":"GetTask"', '1,"a"', '}"a":1,"b"', '{"a":1},"b":{"c":[', ']"x",{"y":1}']

/** Valid bodies for each binding, mutated by the fuzzer. */
const SEEDS = [
  '{"jsonrpc":"2.0","id":1,"method":"SendMessage","params":{"message":{"messageId":"m1","role":"ROLE_USER","parts":[{"text":"hi"}],"metadata":{"k":[1,{"d":null}]}}}}',
  '{"jsonrpc":"2.0","id":"x","method":"GetTask","params":{"id":"t1","historyLength":2}}',
  '{"jsonrpc":"2.0","id":2,"method":"ListTasks","params":{"contextId":"c","pageSize":5}}',
  '{"jsonrpc":"2.0","id":3,"method":"CancelTask","params":{"id":"t2"}}',
  '[{"jsonrpc":"2.0","id":4,"method":"GetTask","params":{"id":"t"}}]',
]
const REST_SEED = '{"message":{"messageId":"m2","role":"ROLE_USER","parts":[{"text":"hi"},{"data":{"a":[1,2]}}]},"configuration":{"historyLength":1}}'
const PIECES = ['{', '}', '[', ']', ',', ':', '"', '\\', ' ', '1', 'a', 'null', '"k":', '\u0000', '\ud800', '😀', '{"a":', '[[', '"params"', '"message"']

/** A seed mutated one to three times; the seeds themselves come out unchanged now and then. */
function mutated(random: () => number, seed: string): string {
  let text = seed
  const times = Math.floor(random() * 4)
  for (let i = 0; i < times; i++) {
    const at = Math.floor(random() * (text.length + 1))
    const piece = PIECES[Math.floor(random() * PIECES.length)]!
    const roll = random()
    if (roll < 0.3) text = text.slice(0, at) + text.slice(at + 1)
    else if (roll < 0.6) text = text.slice(0, at) + piece + text.slice(at)
    else if (roll < 0.75) text = text.slice(0, at)
    else if (roll < 0.9) text = text.slice(at)
    else text = text.slice(0, at) + text.slice(Math.max(0, at - 8), at) + text.slice(at)
  }
  return text
}

interface Fuzzed {
  binding: 'JSON-RPC' | 'HTTP+JSON'
  body: string
  status: number
  code: number | undefined
  retryAfter: string | null
}

/** What no client can act on: a -32603, or a 5xx other than 503 with Retry-After. */
const unactionable = (answer: Fuzzed): boolean => answer.code === -32603 || answer.status === 500 || (answer.status >= 500 && !(answer.status === 503 && answer.retryAfter))

async function send(server: TestServer, binding: Fuzzed['binding'], body: string): Promise<Fuzzed> {
  const url = binding === 'JSON-RPC' ? `${server.url}${server.exchange.path}` : `${server.url}${server.exchange.restPath}/message:send`
  // A pooled connection the server closed as idle just as it was reused resets (the keep-alive
  // race every HTTP client has): sent again once on a fresh one; a second reset is a failure.
  const post = () => fetch(url, { method: 'POST', body, headers: AUTH }).then(async (response) => ({ response, text: await response.text() }))
  const { response, text } = await post().catch(post)
  let parsed: any
  try {
    parsed = JSON.parse(text)
  } catch {
    parsed = undefined
  }
  // A JSON-RPC error's code, or the google.rpc.Status code of an HTTP+JSON error (its HTTP status).
  const code = Array.isArray(parsed) ? parsed.find((reply) => reply?.error?.code === -32603)?.error.code : parsed?.error?.code
  return { binding, body, status: response.status, code, retryAfter: response.headers.get('Retry-After') }
}

/** Sends `count` fuzzed bodies (plus FOUND), `parallel` at a time; the answers no client can act on. */
async function fuzz(server: TestServer, count: number, seed: number): Promise<Fuzzed[]> {
  const random = seededRandom(seed)
  const bodies: [Fuzzed['binding'], string][] = FOUND.flatMap((body) => [['JSON-RPC', body] as const, ['HTTP+JSON', body] as const])
  for (let i = 0; i < count; i++) {
    bodies.push(random() < 0.8 ? ['JSON-RPC', mutated(random, SEEDS[Math.floor(random() * SEEDS.length)]!)] : ['HTTP+JSON', mutated(random, REST_SEED)])
  }
  const bad: Fuzzed[] = []
  const parallel = 16
  for (let i = 0; i < bodies.length; i += parallel) {
    const answers = await Promise.all(bodies.slice(i, i + parallel).map(([binding, body]) => send(server, binding, body)))
    bad.push(...answers.filter(unactionable))
  }
  return bad
}

const report = (bad: Fuzzed[]) => bad.slice(0, 5).map((b) => `${b.binding} ${JSON.stringify(b.body).slice(0, 200)} → ${b.status} ${b.code}`)

describe.each([
  ['memory', soak || 1500],
  ['SQLite', soak ? Math.ceil(soak / 5) : 300],
  ['PostgreSQL', soak ? Math.ceil(soak / 5) : 300],
] as const)('fuzzed bodies on the %s store', (kind, count) => {
  let server: TestServer
  let store: Store | undefined
  let database: TestDatabase | undefined
  beforeAll(async () => {
    if (kind === 'SQLite') {
      database = await openDatabase('sqlite')
      store = new SqliteStore(database.url)
    } else if (kind === 'PostgreSQL') {
      database = await openDatabase('postgres')
      store = new PostgresStore(database.url, { max: 4 })
    }
    await store?.ready?.()
    // Each misspelt field is a warning: thousands of them would bury the report.
    server = await startTestServer({ skills: [echo], logger: { warn() {}, error: (line) => console.error(line) }, ...(store ? { store } : {}) })
  }, 60_000)
  afterAll(async () => {
    await server?.close()
    await (store as { close?: () => Promise<void> } | undefined)?.close?.()
    await database?.close()
  })

  // A soak's hundred thousand requests take minutes on a loaded machine: the bound grows with the count.
  it(
    `answers ${count} of them, and the shapes found before, with nothing but actionable errors`,
    async () => {
      const bad = await fuzz(server, count, kind.length * 7919)
      expect(report(bad)).toEqual([])
    },
    Math.max(120_000, count * 20),
  )
})
