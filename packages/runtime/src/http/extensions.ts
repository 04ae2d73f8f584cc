/**
 * A2A-Extensions negotiation: the client lists the extension URIs it supports (comma-separated,
 * possibly over several header lines). The ones this agent declares are activated and echoed;
 * an extension the card marks required and the client did not list is -32008.
 * @module
 */
import { A2AError } from '../wire/a2a-error.js'
import type { AgentExtension } from '../wire/types.js'

const NONE: readonly string[] = Object.freeze([])

/** Returns the URIs of the declared extensions the request activates, in the card's order. */
export function negotiateExtensions(declared: readonly AgentExtension[], header: string | string[] | undefined): readonly string[] {
  // An agent declaring none (most) answers one shared empty list.
  if (!declared.length) return NONE
  const requested = new Set(
    [header ?? []]
      .flat()
      .flatMap((line) => line.split(','))
      .map((uri) => uri.trim())
      .filter(Boolean),
  )
  const missing = declared.filter((extension) => extension.required && !requested.has(extension.uri)).map((extension) => extension.uri)
  if (missing.length) {
    throw new A2AError(
      'EXTENSION_SUPPORT_REQUIRED',
      `This agent requires the extension${missing.length > 1 ? 's' : ''} ${missing.join(', ')}: send ${missing.length > 1 ? 'them' : 'it'} in the A2A-Extensions header (A2A-Extensions: ${missing.join(', ')})`,
      { metadata: { extensions: missing.join(',') } },
    )
  }
  return declared.filter((extension) => requested.has(extension.uri)).map((extension) => extension.uri)
}
