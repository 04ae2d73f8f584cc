import { execFileSync } from 'node:child_process'
import { once } from 'node:events'
import { readFileSync } from 'node:fs'
import type { Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterEach, describe, expect, it } from 'vitest'
import { createHttpServer, DEFAULT_LISTEN_BACKLOG } from './http-server.js'

let servers: Server[] = []
afterEach(async () => {
  await Promise.all(servers.map((server) => new Promise((resolve) => server.close(resolve))))
  servers = []
})

const hello = createHttpServer.bind(null, (_request, response) => void response.end('hello'))

async function listening(server: Server): Promise<number> {
  servers.push(server)
  if (!server.listening) await once(server, 'listening')
  return (server.address() as AddressInfo).port
}

/** The accept-queue size the kernel holds for a listening port: `ss`'s Send-Q (Linux). */
function kernelBacklog(port: number): number | undefined {
  try {
    const line = execFileSync('ss', ['-ltnH', `sport = :${port}`], { encoding: 'utf8' }).trim()
    return Number(line.split(/\s+/)[2])
  } catch {
    return undefined
  }
}
const somaxconn = (): number => Number(readFileSync('/proc/sys/net/core/somaxconn', 'utf8'))
// Where `ss` runs; elsewhere the forms are still checked to serve.
const linux = process.platform === 'linux' && kernelBacklog(1) !== undefined

describe('createHttpServer listen backlog', () => {
  it.each([
    ['listen(port, host)', (server: Server) => server.listen(0, '127.0.0.1')],
    ['listen(port, host, callback)', (server: Server) => server.listen(0, '127.0.0.1', () => {})],
    ['listen({ port, host })', (server: Server) => server.listen({ port: 0, host: '127.0.0.1' })],
    ['listen(callback)', (server: Server) => server.listen(() => {})],
  ])('%s serves and gets the backlog', async (_form, listen) => {
    const port = await listening(listen(hello({ listenBacklog: 100 })))
    expect(await (await fetch(`http://127.0.0.1:${port}/`)).text()).toBe('hello')
    if (linux) expect(kernelBacklog(port)).toBe(100)
  })

  it.runIf(linux)('defaults to DEFAULT_LISTEN_BACKLOG (as far as somaxconn allows), where Node alone takes 511', async () => {
    const port = await listening(hello().listen(0, '127.0.0.1'))
    expect(kernelBacklog(port)).toBe(Math.min(DEFAULT_LISTEN_BACKLOG, somaxconn()))
    const own = await listening(hello().listen({ port: 0, host: '127.0.0.1', backlog: 7 }))
    expect(kernelBacklog(own)).toBe(7)
  })

  it.each([
    ['listen(port, backlog)', (server: Server) => server.listen(0, 7)],
    ['listen(port, backlog, callback)', (server: Server) => server.listen(0, 7, () => {})],
    ['listen(port, host, backlog)', (server: Server) => server.listen(0, '127.0.0.1', 7)],
  ])('%s serves with the backlog it names, as Node reads it', async (_form, listen) => {
    const port = await listening(listen(hello({ listenBacklog: 100 })))
    expect(await (await fetch(`http://127.0.0.1:${port}/`)).text()).toBe('hello')
    if (linux) expect(kernelBacklog(port)).toBe(7)
  })

  it('refuses a backlog that is not a positive integer', () => {
    expect(() => hello({ listenBacklog: 0 })).toThrow('listenBacklog must be a positive integer')
  })
})
