/**
 * What `a2aListener` serves, kept apart for `serve()`'s roles: its runtime routes (the rest
 * 404) and the app's listener. Here, below both, so neither folder reaches the other.
 * @module
 */
import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http'
import { sendJson } from './respond.js'

export interface ListenerHalves {
  a2a: RequestListener
  app: RequestListener
}

const halves = new WeakMap<RequestListener, ListenerHalves>()

/** Records the halves of a listener made of both. */
export const setListenerHalves = (listener: RequestListener, parts: ListenerHalves): void => void halves.set(listener, parts)

/** The halves of a listener `a2aListener` made; undefined for any other. */
export const listenerHalves = (listener: RequestListener): ListenerHalves | undefined => halves.get(listener)

/** 404 for every request, naming the path. */
export const notFound = (request: IncomingMessage, response: ServerResponse): void => sendJson(response, 404, { error: `Nothing is served at ${request.url ?? '/'}` })
