/**
 * Deterministic routing: a skill is invoked by name, never guessed from prose. The order is
 * `message.metadata.skill`, then the first data part carrying a `skill` key, then the only
 * registered skill. Anything else is rejected, naming what was asked and listing no other skills
 * (the agent card is where a caller finds those).
 * @module
 */
import type { Message } from '../wire/types.js'
import type { Skill } from './skill.js'

export type Route = { skill: Skill } | { rejection: string }

export function routeMessage(message: Message, skills: ReadonlyMap<string, Skill>): Route {
  const asked = askedSkill(message)
  if (asked !== undefined) {
    if (typeof asked !== 'string') return { rejection: 'the requested skill must be a string naming a skill id' }
    const skill = skills.get(asked)
    return skill ? { skill } : { rejection: `no skill named ${JSON.stringify(asked)} is served here; the agent card lists the skills you can call` }
  }
  if (skills.size === 1) return { skill: skills.values().next().value! }
  return {
    rejection: 'this message names no skill: set message.metadata.skill, or send a data part with a "skill" key; the agent card lists the skills you can call',
  }
}

function askedSkill(message: Message): unknown {
  const fromMetadata = message.metadata?.skill
  if (fromMetadata !== undefined) return fromMetadata
  for (const part of message.parts) {
    if ('data' in part && isObject(part.data) && 'skill' in part.data) return part.data.skill
  }
  return undefined
}

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value)
