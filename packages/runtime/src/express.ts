/**
 * Express 5 wiring, for apps whose A2A routes must run inside their middleware chain (after a
 * logger, a rate limiter, an auth layer of the app's): `app.use(a2aRouter(exchange))` serves the
 * JSON-RPC endpoint, the HTTP+JSON routes, the card, artifacts, JWKS and RFC 9728 metadata, plus
 * MCP at `/mcp` when the exchange has entity tools. Every request then pays Express's own setup
 * first; apps that need no middleware on these routes serve them with `a2aListener` (the root
 * export) instead, from the HTTP server's listener. Mount it before body-parsing middleware such
 * as `express.json()`: the exchange reads the body itself, strictly and under its cap.
 * @module
 */
export { a2aRouter, agentsRouter, mcpRouter, type A2aRouterOptions } from './host/express-router.js'
