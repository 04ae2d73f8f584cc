import { afterEach, describe, expect, it } from 'vitest'
import { defineSkill } from '../skills/skill.js'
import { startTestServer, type TestServer } from '../testing/test-server.js'

const echo = defineSkill({
  id: 'echo',
  name: 'Echo',
  description: 'Echoes text',
  tags: ['text'],
  examples: ['hello'],
  handler: () => {},
})
const chart = defineSkill({ id: 'chart', description: 'Draws a chart', outputModes: ['image/png'], handler: () => {} })

let server: TestServer
afterEach(() => server?.close())

const card = { name: 'Card agent', description: 'Serves a card', version: '2.1.0', provider: { organization: 'Acme', url: 'https://acme.example' } }

describe('agent card', () => {
  it('is built from the registered skills with the absolute URL of each binding and the capabilities served', async () => {
    server = await startTestServer({ skills: [echo, chart], card })
    const response = await fetch(`${server.url}/.well-known/agent-card.json`)
    expect(response.status).toBe(200)
    expect(response.headers.get('content-type')).toContain('application/json')
    expect(await response.json()).toEqual({
      name: 'Card agent',
      description: 'Serves a card',
      supportedInterfaces: [
        { url: `${server.url}/a2a`, protocolBinding: 'JSONRPC', protocolVersion: '1.0' },
        { url: `${server.url}/a2a/rest`, protocolBinding: 'HTTP+JSON', protocolVersion: '1.0' },
      ],
      provider: { organization: 'Acme', url: 'https://acme.example' },
      version: '2.1.0',
      capabilities: { streaming: true, pushNotifications: true },
      defaultInputModes: ['text/plain', 'application/json'],
      defaultOutputModes: ['text/plain', 'application/json'],
      skills: [
        { id: 'echo', name: 'Echo', description: 'Echoes text', tags: ['text'], examples: ['hello'] },
        { id: 'chart', name: 'chart', description: 'Draws a chart', tags: ['chart'], outputModes: ['image/png'] },
      ],
    })
  })

  it('sends an ETag and Cache-Control, and 304 on a matching If-None-Match', async () => {
    server = await startTestServer({ skills: [echo], card: { ...card, maxAgeSeconds: 60 } })
    const first = await fetch(`${server.url}/.well-known/agent-card.json`)
    const etag = first.headers.get('etag')!
    expect(etag).toMatch(/^".+"$/)
    expect(first.headers.get('cache-control')).toBe('public, max-age=60')
    const cached = await fetch(`${server.url}/.well-known/agent-card.json`, { headers: { 'If-None-Match': `W/"other", ${etag}` } })
    expect(cached.status).toBe(304)
    expect(cached.headers.get('etag')).toBe(etag)
    const stale = await fetch(`${server.url}/.well-known/agent-card.json`, { headers: { 'If-None-Match': '"other"' } })
    expect(stale.status).toBe(200)
  })

  it('sends Last-Modified, and 304 on an If-Modified-Since not before it unless If-None-Match decides', async () => {
    server = await startTestServer({ skills: [echo], card })
    const url = `${server.url}/.well-known/agent-card.json`
    const first = await fetch(url)
    const lastModified = first.headers.get('last-modified')!
    expect(new Date(lastModified).toUTCString()).toBe(lastModified)
    expect(Date.parse(lastModified)).toBeLessThanOrEqual(Date.now())
    const since = async (date: string, extra: Record<string, string> = {}) => (await fetch(url, { headers: { 'If-Modified-Since': date, ...extra } })).status
    expect(await since(lastModified)).toBe(304)
    expect(await since(new Date(Date.now() + 60_000).toUTCString())).toBe(304)
    expect(await since(new Date(Date.parse(lastModified) - 1000).toUTCString())).toBe(200)
    expect(await since('not a date')).toBe(200)
    expect(await since(lastModified, { 'If-None-Match': '"other"' })).toBe(200)
  })

  it('declares the extensions the app supports in capabilities.extensions', async () => {
    const extensions = [
      { uri: 'https://ext.example/geo/v1', description: 'Geolocation', required: true },
      { uri: 'https://ext.example/trace/v1', params: { depth: 2 } },
    ]
    server = await startTestServer({ skills: [echo], card, extensions })
    const body = (await (await fetch(`${server.url}/.well-known/agent-card.json`)).json()) as any
    expect(body.capabilities.extensions).toEqual(extensions)
  })

  it('uses publicUrl when the app sits behind a proxy', async () => {
    server = await startTestServer({ skills: [echo], card: { ...card, publicUrl: 'https://agent.example.com/' }, path: '/rpc' })
    const body = (await (await fetch(`${server.url}/.well-known/agent-card.json`)).json()) as any
    expect(body.supportedInterfaces[0].url).toBe('https://agent.example.com/rpc')
  })

  it("declares the extended card when one is configured, and builds it per caller from the hook's skills", async () => {
    const report = { id: 'report', name: 'Report', description: 'Monthly report', tags: ['report'] }
    server = await startTestServer({
      skills: [echo, chart],
      card: { ...card, publicSkills: (skill) => skill.id !== 'chart' },
      extendedCard: (principal) => (principal.owner === 'alice' ? ['chart', report, 'echo'] : []),
    })
    const body = (await (await fetch(`${server.url}/.well-known/agent-card.json`)).json()) as any
    expect(body.capabilities).toEqual({ streaming: true, pushNotifications: true, extendedAgentCard: true })
    expect(body.skills.map((skill: any) => skill.id)).toEqual(['echo'])
    const forAlice = await server.result('GetExtendedAgentCard')
    expect(forAlice.skills.map((skill: any) => skill.id)).toEqual(['echo', 'chart', 'report'])
    expect(forAlice.supportedInterfaces[0].url).toBe(`${server.url}/a2a`)
    expect((await server.result('GetExtendedAgentCard', {}, { token: 'bob' })).skills.map((skill: any) => skill.id)).toEqual(['echo'])
  })
})

describe('configuration errors name the fix', () => {
  it.each([
    [{ skills: [] }, 'at least one skill'],
    [{ skills: [echo, echo] }, 'share the id "echo"'],
    [{ skills: [{ ...echo, id: 'bad id' }] }, 'Skill id "bad id"'],
    [{ skills: [echo], path: 'a2a' }, 'must start with "/"'],
    [{ skills: [echo], allowedOrigins: ['*.example.com'] }, 'allowedOrigins entry'],
  ])('%#', async (options, message) => {
    await expect(startTestServer(options as never)).rejects.toThrow(message)
  })
})
