/**
 * The challenge every 401 carries: where the RFC 9728 metadata of this resource is.
 * @module
 */

export const PROTECTED_RESOURCE_PATH = '/.well-known/oauth-protected-resource'

/** The challenge of every 401: Bearer, with the metadata URL (RFC 9728 section 5.1). */
export function bearerChallenge(baseUrl: string): string {
  return `Bearer resource_metadata="${baseUrl}${PROTECTED_RESOURCE_PATH}"`
}
