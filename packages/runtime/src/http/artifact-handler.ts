/**
 * Serves stored artifact files at `<path>/artifacts/<taskId>/<fileId>` to the callers who may
 * see the task: the same credentials as the exchange (401 without), and a task another owner,
 * tenant or scope set made is a 404 exactly like an unknown one.
 * @module
 */
import type { IncomingMessage, ServerResponse } from 'node:http'
import { canSee, tierOf, type Principal, type PrincipalResolver, type Viewer } from '../core/principal.js'
import { bearerChallenge } from './bearer-challenge.js'
import { requestBaseUrl } from './base-url.js'
import { sendJson } from './respond.js'
import { scrub, type Logger } from '../log/logger.js'
import type { Store } from '../store/store.js'
import type { ArtifactFiles } from '../core/artifact-files.js'

export interface ArtifactHandlerOptions {
  path: string
  resolvePrincipal: PrincipalResolver
  store: Store
  files: ArtifactFiles
  viewerOf: (principal: Principal) => Viewer
  publicUrl: string | undefined
  logger: Logger
}

export function createArtifactHandler(options: ArtifactHandlerOptions) {
  const prefix = `${options.path}/artifacts/`
  return async (request: IncomingMessage, response: ServerResponse): Promise<void> => {
    if (request.method !== 'GET' && request.method !== 'HEAD') {
      return sendJson(response, 405, { error: 'Use GET to read an artifact file' }, { Allow: 'GET, HEAD' })
    }
    const principal = await Promise.resolve(options.resolvePrincipal(request)).catch((error: unknown) => {
      options.logger.error(`a2a: principal resolver threw: ${scrub(error)}`)
      return undefined
    })
    if (!principal?.owner) {
      return sendJson(
        response,
        401,
        { error: 'Authentication required: send the credentials you call the agent with' },
        {
          'WWW-Authenticate': bearerChallenge(options.publicUrl ?? requestBaseUrl(request)),
        },
      )
    }
    const [taskId, fileId] = new URL(request.url ?? '/', 'http://localhost').pathname.slice(prefix.length).split('/').map(decodeSegment)
    const record = taskId && fileId ? await options.store.get(taskId) : undefined
    const file = record && canSee(options.viewerOf(principal), tierOf(record)) ? await options.files.get(record.id, fileId!) : undefined
    if (!file) return sendJson(response, 404, { error: 'No such artifact file: the task or the file is unknown, or no longer kept' })
    response.writeHead(200, {
      'Content-Type': file.mediaType,
      'Content-Length': file.bytes.byteLength,
      'Cache-Control': 'private, max-age=3600',
      'X-Content-Type-Options': 'nosniff',
      'Content-Disposition': `attachment${file.filename ? `; filename*=UTF-8''${encodeURIComponent(file.filename)}` : ''}`,
    })
    response.end(request.method === 'HEAD' ? undefined : file.bytes)
  }
}

const decodeSegment = (segment: string): string | undefined => {
  try {
    return decodeURIComponent(segment)
  } catch {
    return undefined
  }
}
