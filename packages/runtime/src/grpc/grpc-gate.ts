/**
 * The gate on the gRPC binding: the exchange's own resolver, version and extension checks, with
 * the service parameters read from the call's metadata (section 10.2) instead of HTTP headers.
 * The resolver sees a request-shaped object whose headers are the metadata (keys lowercase, as
 * gRPC sends them), so `authorization` reaches it where an HTTP request's header would. Origins and
 * content types are HTTP's alone; body size is the server's receive limit.
 * @module
 */
import type { IncomingMessage } from 'node:http'
import type { Principal } from '../core/principal.js'
import { negotiateExtensions } from '../http/extensions.js'
import { negotiateVersion } from '../http/version.js'
import type { GateOptions } from '../http/gate.js'
import { HttpRefusal } from '../core/http-refusal.js'
import { scrub } from '../log/logger.js'
import { A2AError } from '../wire/a2a-error.js'
import type { GrpcCall } from './grpc-call.js'

export interface AdmittedCall {
  principal: Principal
  /** Resolves the caller again from the same metadata: long streams recheck at each keep-alive. */
  reresolve: () => Promise<Principal | null | undefined>
}

/** Admits the call or throws the A2AError (or HttpRefusal) it is answered with. */
export async function admitCall(options: GateOptions, call: GrpcCall): Promise<AdmittedCall> {
  const request = requestOf(call)
  let principal: Principal | null | undefined
  try {
    principal = await options.resolvePrincipal(request)
  } catch (error) {
    // A resolver's own refusal (apiKeyResolver: 503 while the database is unreachable) stands.
    if (error instanceof HttpRefusal) throw error
    options.logger.error(`a2a: principal resolver threw: ${scrub(error)}`)
    throw A2AError.internal()
  }
  if (!principal || typeof principal.owner !== 'string' || principal.owner === '') {
    throw A2AError.unauthenticated('Authentication required: send credentials this agent accepts in the `authorization` metadata (see securitySchemes on its agent card)')
  }
  negotiateVersion(call.metadata['a2a-version'], undefined, options.assumeVersionWhenAbsent)
  const activated = negotiateExtensions(options.extensions, call.metadata['a2a-extensions'])
  if (activated.length) call.setHeader('a2a-extensions', activated.join(', '))
  return { principal, reresolve: async () => options.resolvePrincipal(request) }
}

/** The call as the request a PrincipalResolver reads: its text metadata as headers, its path as URL. */
function requestOf(call: GrpcCall): IncomingMessage {
  return { method: 'POST', url: call.path, headers: call.metadata, socket: { remoteAddress: call.remoteAddress } } as unknown as IncomingMessage
}
