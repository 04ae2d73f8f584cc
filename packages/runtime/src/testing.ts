/**
 * `@a2a-agent/runtime/testing`: a listening test server with a JSON-RPC client, a fixed-token
 * principal resolver, the store conformance suite every {@link Store} must pass, and what the
 * generated entity tests call apps with (entity tools served to real API keys among them).
 * @module
 */
export { startTestServer, tokenResolver, userMessage } from './testing/test-server.js'
export type { RpcOptions, RpcReply, TestServer, TestServerOptions } from './testing/test-server.js'
export { describeStoreConformance } from './store/conformance.js'
export type { StoreConformanceOptions } from './store/conformance.js'
export { openSse } from './testing/sse-client.js'
export type { SseEvent, SseReply } from './testing/sse-client.js'
export { gate } from './testing/gate.js'
export { BINDINGS, bindingClient } from './testing/binding-client.js'
export type { Binding, BindingClient, BindingEndpoints, CallOptions, WireCheck, WireError, WireReply } from './testing/binding-client.js'
export { serveToApiKeys } from './testing/api-key-app.js'
export type { ApiKeyApp } from './testing/api-key-app.js'
export { entityCaller, reasonOf, resultOf } from './testing/entity-caller.js'
export type { Args, Call, EntityCaller, EntityEndpoints, ListedTool, Outcome, TestApp, Transport, User } from './testing/entity-caller.js'
