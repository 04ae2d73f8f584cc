/**
 * `serveGrpc(exchange, { port })`: the exchange's gRPC binding on a port of its own, listed on
 * the exchange's card (supportedInterfaces, protocolBinding GRPC) while it serves.
 * @module
 */
import type { Http2SecureServer, Http2Server, SecureServerOptions } from 'node:http2'
import { AgentHost } from '../agents/agent-host.js'
import type { Exchange } from '../exchange/exchange.js'
import type { GateOptions } from '../http/gate.js'
import { HttpRefusal } from '../core/http-refusal.js'
import { A2AError } from '../wire/a2a-error.js'
import { GrpcServer } from './grpc-server.js'
import { a2aRoutes } from './grpc-service.js'

export interface ServeGrpcOptions {
  /** The port to listen on; 0 picks a free one (see {@link GrpcBinding.port}). */
  port: number
  /** The address to listen on; default `0.0.0.0` (every IPv4 interface), as an HTTP server's listen(port) reaches callers. */
  host?: string
  /**
   * The address the card lists for the binding, as a gRPC client dials it (`agent.example.com:443`).
   * Default: the host the card was fetched at, with this binding's port.
   */
  url?: string
  /**
   * TLS for the binding, as node:tls takes it (`{ key, cert }`, and `ca` with `requestCert` for
   * client certificates); default none: clear-text HTTP/2, for loopback or a proxy that terminates TLS.
   */
  tls?: SecureServerOptions
  /** With an AgentHost: the id of the agent this port serves (one agent per port). */
  agent?: string
}

export interface GrpcBinding {
  /** The port the binding listens on. */
  readonly port: number
  /** The HTTP/2 server underneath. */
  readonly server: Http2Server | Http2SecureServer
  /**
   * Takes the interface off the card, stops taking connections, ends open streams UNAVAILABLE (the
   * client subscribes again), and lets unary calls in flight answer; what is left after `timeoutMs`
   * (default 5 s) is cut.
   */
  close(options?: { timeoutMs?: number }): Promise<void>
}

export async function serveGrpc(target: Exchange | AgentHost, options: ServeGrpcOptions): Promise<GrpcBinding> {
  if (!Number.isInteger(options.port) || options.port < 0 || options.port > 65535) {
    throw new Error(`serveGrpc: port ${String(options.port)} is not a port number (an integer from 0 to 65535; 0 picks a free one)`)
  }
  const { exchange, gate } = target instanceof AgentHost ? hostedAgent(target, options.agent) : { exchange: target, gate: target.bindingOptions }
  const server = new GrpcServer(a2aRoutes(gate), { maxReceiveMessageLength: gate.maxBodyBytes, tls: options.tls })
  const port = await server.listen(options.host ?? '0.0.0.0', options.port)
  const unlist = exchange.listInterface((baseUrl) => ({ url: options.url ?? `${new URL(baseUrl).hostname}:${port}`, protocolBinding: 'GRPC', protocolVersion: '1.0' }))
  return {
    port,
    server: server.http2,
    close: async ({ timeoutMs = 5000 } = {}) => {
      unlist()
      await server.close(timeoutMs)
    },
  }
}

/**
 * One agent of a host, behind the host's canUse as its HTTP routes are: a caller who may not use
 * it gets NOT_FOUND, as for an agent that does not exist.
 */
function hostedAgent(host: AgentHost, id: string | undefined): { exchange: Exchange; gate: Exchange['bindingOptions'] } {
  const exchange = id === undefined ? undefined : host.agent(id)
  if (!exchange) throw new Error(`serveGrpc: name the agent this port serves, { agent: '<id>' }, one of ${[...host.agents.keys()].join(', ')}`)
  const base = exchange.bindingOptions
  const resolvePrincipal: GateOptions['resolvePrincipal'] = async (request) => {
    const principal = await base.resolvePrincipal(request)
    if (principal?.owner && !(await host.canUse(principal, id!))) throw new HttpRefusal(404, A2AError.methodNotFound(`agent ${id}`, 'No such agent'))
    return principal
  }
  return { exchange, gate: { ...base, resolvePrincipal } }
}
