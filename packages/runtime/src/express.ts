/**
 * Express 5 wiring: `app.use(a2aRouter(exchange))` serves the JSON-RPC endpoint and the public
 * agent card. Mount it before body-parsing middleware such as `express.json()`: the exchange reads
 * the body itself, strictly and under its cap.
 * @module
 */
import { Router } from 'express'
import type { Exchange } from './exchange/exchange.js'

export function a2aRouter(exchange: Exchange): Router {
  const router = Router()
  router.all(exchange.path, (request, response, next) => {
    exchange.handle(request, response).catch(next)
  })
  router.all(exchange.cardPath, (request, response) => exchange.handleCard(request, response))
  return router
}
