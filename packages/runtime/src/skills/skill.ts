/**
 * A skill is a named piece of work a caller invokes by id. Its handler gets a {@link TaskContext}
 * and drives the task through it.
 * @module
 */
import type { TaskContext } from './task-context.js'
import type { Message } from '../wire/types.js'

/** What a handler may return: nothing (the task completes if still open) or a direct message. */
export type SkillResult = void | Message

export type SkillHandler = (context: TaskContext) => SkillResult | Promise<SkillResult>

export interface Skill {
  /** Stable id a caller names in `message.metadata.skill` or a data part's `skill` key. */
  id: string
  /** Human-readable name for the agent card; defaults to the id. */
  name?: string
  description: string
  /** Keywords for the agent card; defaults to the id. */
  tags?: string[]
  examples?: string[]
  /** Media types this skill accepts/produces, when they differ from the card's defaults. */
  inputModes?: string[]
  outputModes?: string[]
  handler: SkillHandler
}

const SKILL_ID = /^[A-Za-z0-9][A-Za-z0-9._-]*$/

/** Identity with type checking and an early, named error for a malformed skill. */
export function defineSkill(skill: Skill): Skill {
  if (!SKILL_ID.test(skill.id)) {
    throw new Error(`Skill id ${JSON.stringify(skill.id)} must start with a letter or digit and use only letters, digits, ".", "_" and "-"`)
  }
  if (typeof skill.handler !== 'function') throw new Error(`Skill "${skill.id}" has no handler function`)
  if (!skill.description?.trim()) throw new Error(`Skill "${skill.id}" needs a description: the agent card shows it to callers`)
  return skill
}
