import type { defineSkill, Skill } from '@a2a-agent/runtime'

export interface Holds {
  skill: Skill
  readonly held: number
  tick(): Promise<Promise<unknown>[]>
  finish(): number
}

export declare function holdSkill(define: typeof defineSkill, stamp: () => number): Holds
