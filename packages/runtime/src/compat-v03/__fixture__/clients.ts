/**
 * The official SDK clients of both generations, made alike: `@a2a-js/sdk` 1.3.0 and its last 0.3
 * release (the `a2a-sdk-v03` alias), each resolving the agent's card at `url` and calling over
 * JSON-RPC through `fetchImpl`.
 */
import * as sdk10 from '@a2a-js/sdk/client'
import * as sdk03 from 'a2a-sdk-v03/client'

/** A fetch that sends `Authorization: Bearer <token>` on every call (card and JSON-RPC). */
export function bearerFetch(token: string, fetchImpl: typeof fetch = fetch): typeof fetch {
  return (input, init) => {
    const headers = new Headers(init?.headers)
    headers.set('Authorization', `Bearer ${token}`)
    return fetchImpl(input, { ...init, headers })
  }
}

/** The parts of either SDK's client module a factory is made of (the two generations' types differ, their shape does not). */
interface ClientSdk<C> {
  ClientFactory: new (options: any) => { createFromUrl(url: string): Promise<C> }
  ClientFactoryOptions: { default: any; createFrom(original: any, overrides: any): any }
  JsonRpcTransportFactory: new (options: { fetchImpl: typeof fetch }) => unknown
  DefaultAgentCardResolver: new (options: { fetchImpl: typeof fetch }) => unknown
}

function connect<C>(sdk: ClientSdk<C>, url: string, fetchImpl: typeof fetch): Promise<C> {
  const options = sdk.ClientFactoryOptions.createFrom(sdk.ClientFactoryOptions.default, {
    transports: [new sdk.JsonRpcTransportFactory({ fetchImpl })],
    cardResolver: new sdk.DefaultAgentCardResolver({ fetchImpl }),
    preferredTransports: ['JSONRPC'],
  })
  return new sdk.ClientFactory(options).createFromUrl(url)
}

export const connect03 = (url: string, fetchImpl: typeof fetch): Promise<sdk03.Client> => connect<sdk03.Client>(sdk03, url, fetchImpl)
export const connect10 = (url: string, fetchImpl: typeof fetch): Promise<sdk10.Client> => connect<sdk10.Client>(sdk10, url, fetchImpl)
