import type { IncomingMessage } from 'node:http'

/**
 * The path of a request's target, without its query: origin-form (`/a2a`) or absolute-form
 * (`http://host/a2a`, valid HTTP/1.1 and sent by some proxies), whose authority is dropped.
 */
export function requestPath(request: IncomingMessage): string {
  let url = request.url ?? '/'
  if (!url.startsWith('/')) {
    const authority = url.indexOf('://')
    if (authority !== -1) {
      const path = url.indexOf('/', authority + 3)
      const query = url.indexOf('?', authority + 3)
      url = path === -1 || (query !== -1 && query < path) ? `/${query === -1 ? '' : url.slice(query)}` : url.slice(path)
    }
  }
  const query = url.indexOf('?')
  return query === -1 ? url : url.slice(0, query)
}
