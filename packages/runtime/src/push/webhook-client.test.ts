import { createServer, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo, Socket } from 'node:net'
import { afterEach, describe, expect, it } from 'vitest'
import { checkPushUrl, systemLookup, type HostLookup } from './address-guard.js'
import { deliverWebhook } from './webhook-client.js'

// Every server here listens on 127.0.0.1 only; 'public' names are stubbed and never dialled.
interface Hit {
  method: string | undefined
  url: string | undefined
  headers: IncomingHttpHeaders
  body: string
  localAddress: string | undefined
}
interface Receiver {
  port: number
  hits: Hit[]
  connections: number
}

const cleanups: Array<() => Promise<void> | void> = []
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup()
})

async function startReceiver(answer: (req: IncomingMessage, res: ServerResponse) => void): Promise<Receiver> {
  const receiver: Receiver = { port: 0, hits: [], connections: 0 }
  const server = createServer((req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (chunk: Buffer) => chunks.push(chunk))
    req.on('end', () => {
      receiver.hits.push({
        method: req.method,
        url: req.url,
        headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8'),
        localAddress: req.socket.localAddress,
      })
      answer(req, res)
    })
  })
  server.on('connection', (_socket: Socket) => receiver.connections++)
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  receiver.port = (server.address() as AddressInfo).port
  cleanups.push(
    () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      }),
  )
  return receiver
}

const ok = (_req: IncomingMessage, res: ServerResponse) => res.writeHead(200).end('thanks')
const event = { statusUpdate: { taskId: 't-1', contextId: 'c-1', status: { state: 'TASK_STATE_COMPLETED' } } }

describe('deliverWebhook', () => {
  it('POSTs the event with the A2A headers when private targets are allowed', async () => {
    const receiver = await startReceiver(ok)
    const result = await deliverWebhook(
      {
        url: `http://127.0.0.1:${receiver.port}/hook?x=1`,
        token: 'tok-123',
        authentication: { scheme: 'Bearer', credentials: 'secret-abc' },
      },
      event,
      { allowPrivate: true },
    )
    expect(result).toEqual({ status: 200 })
    expect(receiver.hits).toHaveLength(1)
    const hit = receiver.hits[0]!
    expect(hit.method).toBe('POST')
    expect(hit.url).toBe('/hook?x=1')
    expect(hit.headers['content-type']).toBe('application/a2a+json')
    expect(hit.headers['authorization']).toBe('Bearer secret-abc')
    expect(hit.headers['x-a2a-notification-token']).toBe('tok-123')
    expect(JSON.parse(hit.body)).toEqual(event)
  })

  it('sends neither credential header when none is configured', async () => {
    const receiver = await startReceiver(ok)
    await deliverWebhook({ url: `http://127.0.0.1:${receiver.port}/` }, event, { allowPrivate: true })
    expect(receiver.hits[0]!.headers['authorization']).toBeUndefined()
    expect(receiver.hits[0]!.headers['x-a2a-notification-token']).toBeUndefined()
  })

  it('refuses the same loopback URL without allowPrivate, sending nothing', async () => {
    const receiver = await startReceiver(ok)
    for (const host of ['127.0.0.1', 'localhost']) {
      await expect(deliverWebhook({ url: `http://${host}:${receiver.port}/hook` }, event, { allowPrivate: false })).rejects.toThrow(/push delivery refused: host .* is loopback/)
    }
    expect(receiver.connections).toBe(0)
  })

  it('refuses at connect time when a name rebinds to loopback after registration', async () => {
    const receiver = await startReceiver(ok)
    let calls = 0
    // First answer (registration) is public; every later one points at the receiver.
    const rebinding: HostLookup = async () => (calls++ === 0 ? ['93.184.215.14'] : ['127.0.0.1'])
    const url = `http://rebind.test:${receiver.port}/hook`
    await expect(checkPushUrl(url, { allowPrivate: false, lookup: rebinding })).resolves.toBeInstanceOf(URL)
    await expect(deliverWebhook({ url }, event, { allowPrivate: false, lookup: rebinding })).rejects.toThrow(
      'push delivery refused: host rebind.test resolves to 127.0.0.1, which is loopback',
    )
    expect(receiver.connections).toBe(0)
  })

  it('dials the address the guarded lookup returned, resolving once', async () => {
    const receiver = await startReceiver(ok)
    let calls = 0
    // The system resolver knows nothing of rebind.test, so reaching the receiver proves the
    // socket used the checked answer rather than resolving again.
    const once: HostLookup = async () => {
      calls++
      return ['127.0.0.1']
    }
    const result = await deliverWebhook({ url: `http://rebind.test:${receiver.port}/` }, event, {
      allowPrivate: true,
      lookup: once,
    })
    expect(result.status).toBe(200)
    expect(calls).toBe(1)
    expect(receiver.hits[0]!.localAddress).toBe('127.0.0.1')
    expect(receiver.hits[0]!.headers.host).toBe(`rebind.test:${receiver.port}`)
  })

  it('dials a localhost URL on an address the guarded lookup checked', async () => {
    const receiver = await startReceiver(ok)
    const checked: string[] = []
    const recording: HostLookup = async (host) => {
      const addresses = await systemLookup(host)
      checked.push(...addresses)
      return addresses
    }
    const result = await deliverWebhook({ url: `http://localhost:${receiver.port}/` }, event, {
      allowPrivate: true,
      lookup: recording,
    })
    expect(result.status).toBe(200)
    expect(checked).toContain('127.0.0.1')
    expect(checked).toContain(receiver.hits[0]!.localAddress)
  })

  it('does not follow a redirect', async () => {
    const elsewhere = await startReceiver(ok)
    const redirector = await startReceiver((_req, res) => res.writeHead(302, { Location: `http://127.0.0.1:${elsewhere.port}/next` }).end())
    const result = await deliverWebhook({ url: `http://127.0.0.1:${redirector.port}/` }, event, {
      allowPrivate: true,
    })
    expect(result).toEqual({ status: 302 })
    expect(redirector.hits).toHaveLength(1)
    expect(elsewhere.connections).toBe(0)
  })

  it('resolves with a non-2xx status', async () => {
    const receiver = await startReceiver((_req, res) => res.writeHead(503).end('down'))
    await expect(deliverWebhook({ url: `http://127.0.0.1:${receiver.port}/` }, event, { allowPrivate: true })).resolves.toEqual({ status: 503 })
  })

  it('stops reading a large response body and still reports the status', async () => {
    const receiver = await startReceiver((_req, res) => {
      res.writeHead(200)
      res.end(Buffer.alloc(4 * 1024 * 1024, 'x'))
    })
    await expect(deliverWebhook({ url: `http://127.0.0.1:${receiver.port}/` }, event, { allowPrivate: true })).resolves.toEqual({ status: 200 })
  })

  it('rejects after timeoutMs when the receiver never answers', async () => {
    const receiver = await startReceiver(() => {})
    const started = Date.now()
    await expect(deliverWebhook({ url: `http://127.0.0.1:${receiver.port}/` }, event, { allowPrivate: true, timeoutMs: 200 })).rejects.toThrow(/timed out after 200 ms/)
    const elapsed = Date.now() - started
    expect(elapsed).toBeGreaterThanOrEqual(190)
    expect(elapsed).toBeLessThan(2_000)
    expect(receiver.hits).toHaveLength(1)
  })

  it('rejects with a clear error when nothing listens', async () => {
    const receiver = await startReceiver(ok)
    const port = receiver.port
    await cleanups.pop()!()
    await expect(deliverWebhook({ url: `http://127.0.0.1:${port}/` }, event, { allowPrivate: true })).rejects.toThrow(/push delivery to 127\.0\.0\.1:\d+ failed: .*ECONNREFUSED/)
  })

  it('ignores HTTP_PROXY / HTTPS_PROXY', async () => {
    const proxy = await startReceiver(ok)
    const receiver = await startReceiver(ok)
    const keys = ['HTTP_PROXY', 'HTTPS_PROXY', 'http_proxy', 'https_proxy', 'NO_PROXY', 'no_proxy'] as const
    const saved = keys.map((key) => [key, process.env[key]] as const)
    cleanups.push(() => {
      for (const [key, value] of saved) {
        if (value === undefined) delete process.env[key]
        else process.env[key] = value
      }
    })
    for (const key of keys.slice(0, 4)) process.env[key] = `http://127.0.0.1:${proxy.port}`
    delete process.env.NO_PROXY
    delete process.env.no_proxy
    // A name, not a loopback literal, so no proxy-bypass rule for localhost could explain it.
    const result = await deliverWebhook({ url: `http://rebind.test:${receiver.port}/` }, event, {
      allowPrivate: true,
      lookup: async () => ['127.0.0.1'],
    })
    expect(result.status).toBe(200)
    expect(receiver.hits).toHaveLength(1)
    expect(proxy.connections).toBe(0)
  })

  it('refuses non-http schemes and userinfo before dialling', async () => {
    await expect(deliverWebhook({ url: 'file:///etc/passwd' }, event, { allowPrivate: true })).rejects.toThrow(/scheme file:/)
    await expect(deliverWebhook({ url: 'http://a:b@127.0.0.1:9/' }, event, { allowPrivate: true })).rejects.toThrow(/userinfo/)
  })
})
