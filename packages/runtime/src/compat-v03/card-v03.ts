/**
 * The 1.0 agent card as a 0.3 card: one `url` with its `preferredTransport`, the 0.3 interfaces in
 * `additionalInterfaces`, `protocolVersion: "0.3.0"`, OpenAPI-style security schemes. The 1.0
 * `supportedInterfaces` stay on it (as the official SDKs serve it), so a 1.0 client that fetched
 * it without `A2A-Version` still finds its interfaces. A 1.0 signature does not cover the 0.3
 * shape: it is left off, and a signed agent signs the 0.3 card anew (see Exchange.legacyCard).
 * @module
 */
import type { AgentCard, AgentInterface, AgentSkill } from '../wire/types.js'
import { isObject } from '../wire/to-v03.js'

type Json = Record<string, unknown>

export const V03_PROTOCOL_VERSION = '0.3.0'
/** Where 0.2-era and many 0.3 clients look for the card. */
export const V03_CARD_PATH = '/.well-known/agent.json'

/** The interfaces a 0.3 client can use: those the card marks 0.x. */
const isV03 = (face: AgentInterface): boolean => face.protocolVersion.startsWith('0.')

export function cardToV03(card: AgentCard): Json {
  const interfaces = card.supportedInterfaces.filter(isV03)
  const primary = interfaces[0] ?? card.supportedInterfaces[0]
  const out: Json = {
    protocolVersion: V03_PROTOCOL_VERSION,
    name: card.name,
    description: card.description,
    url: primary?.url ?? '',
    preferredTransport: primary?.protocolBinding ?? 'JSONRPC',
    additionalInterfaces: interfaces.map((face) => ({ url: face.url, transport: face.protocolBinding })),
    version: card.version,
    capabilities: {
      streaming: card.capabilities.streaming ?? false,
      pushNotifications: card.capabilities.pushNotifications ?? false,
      ...(card.capabilities.extensions?.length ? { extensions: card.capabilities.extensions } : {}),
    },
    defaultInputModes: card.defaultInputModes,
    defaultOutputModes: card.defaultOutputModes,
    skills: card.skills.map(skillToV03),
    supportsAuthenticatedExtendedCard: card.capabilities.extendedAgentCard === true,
    supportedInterfaces: card.supportedInterfaces,
  }
  if (card.provider) out.provider = card.provider
  if (card.documentationUrl) out.documentationUrl = card.documentationUrl
  if (card.iconUrl) out.iconUrl = card.iconUrl
  if (card.securitySchemes) out.securitySchemes = Object.fromEntries(Object.entries(card.securitySchemes).map(([name, scheme]) => [name, schemeToV03(scheme)]))
  if (card.securityRequirements?.length) out.security = card.securityRequirements.map(requirementToV03)
  return out
}

function skillToV03(skill: AgentSkill): Json {
  const { securityRequirements, ...rest } = skill as AgentSkill & { securityRequirements?: AgentCard['securityRequirements'] }
  return securityRequirements?.length ? { ...rest, security: securityRequirements.map(requirementToV03) } : rest
}

/** `{schemes: {bearer: {list: []}}}` → `{bearer: []}`. */
const requirementToV03 = (requirement: { schemes: Record<string, { list: string[] }> }): Json =>
  Object.fromEntries(Object.entries(requirement.schemes).map(([name, scopes]) => [name, scopes.list ?? []]))

/** The 1.0 oneof member → 0.3's `type` discriminator (OpenAPI names). */
function schemeToV03(scheme: unknown): unknown {
  if (!isObject(scheme)) return scheme
  const [[member, body] = []] = Object.entries(scheme)
  const fields = isObject(body) ? body : {}
  switch (member) {
    case 'apiKeySecurityScheme': {
      const { location, ...rest } = fields
      return { type: 'apiKey', in: location, ...rest }
    }
    case 'httpAuthSecurityScheme':
      return { type: 'http', ...fields }
    case 'oauth2SecurityScheme': {
      // 0.3 has no device-code flow.
      const { deviceCode: _deviceCode, ...flows } = isObject(fields.flows) ? fields.flows : {}
      return { type: 'oauth2', ...fields, flows }
    }
    case 'openIdConnectSecurityScheme':
      return { type: 'openIdConnect', ...fields }
    case 'mtlsSecurityScheme':
      return { type: 'mutualTLS', ...fields }
    default:
      return scheme
  }
}
