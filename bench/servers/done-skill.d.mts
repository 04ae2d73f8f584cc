import type { defineSkill, Skill } from '@a2a-agent/runtime'

export declare const doneSkill: (define: typeof defineSkill) => Skill
