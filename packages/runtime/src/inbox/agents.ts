/**
 * The app's agents as the inbox reads them: every read and answer is a call of the agent's own
 * method table (GetTask, ListTasks, SendMessage) as the signed-in person, so the page sees exactly
 * what that person would over A2A: their tasks in their tenant, nobody else's.
 * @module
 */
import { AgentHost } from '../agents/agent-host.js'
import type { Principal } from '../core/principal.js'
import type { Exchange } from '../exchange/exchange.js'
import { A2AError } from '../wire/a2a-error.js'
import { isPaused, type ListTasksResponse, type Message, type SendMessageResponse, type Task, type TaskState } from '../wire/types.js'

export interface InboxAgent {
  /** The AgentHost's id; empty for a lone exchange. */
  id: string
  name: string
  exchange: Exchange
  /** Skill names by id, from the card. */
  skills: ReadonlyMap<string, string>
}

export interface TaskView {
  agent: InboxAgent
  task: Task
  /** The skill's name (its id when the card names none); empty when unknown. */
  skill: string
}

const WAITING: readonly TaskState[] = ['TASK_STATE_INPUT_REQUIRED', 'TASK_STATE_AUTH_REQUIRED']
const RECENT = 20

export class InboxAgents {
  readonly #agents: InboxAgent[]
  readonly #host: AgentHost | undefined

  /** `path`: the inbox's, where each artifact of these agents gets its web page. */
  constructor(target: Exchange | AgentHost, path: string) {
    this.#host = target instanceof AgentHost ? target : undefined
    const entries: [string, Exchange][] = target instanceof AgentHost ? [...target.agents] : [['', target]]
    this.#agents = entries.map(([id, exchange]) => {
      exchange.showArtifactsAt(path)
      const card = exchange.agentCard('http://localhost')
      return { id, name: card.name, exchange, skills: new Map(card.skills.map((skill) => [skill.id, skill.name || skill.id])) }
    })
  }

  get all(): readonly InboxAgent[] {
    return this.#agents
  }

  /** The agents this person may use (an AgentHost's canUse). */
  async usable(principal: Principal): Promise<InboxAgent[]> {
    const host = this.#host
    if (!host) return this.#agents
    const allowed = await Promise.all(this.#agents.map((agent) => host.canUse(principal, agent.id)))
    return this.#agents.filter((_, index) => allowed[index])
  }

  /** Tasks waiting on the person (input or auth required) first, then the most recent others. */
  async tasks(principal: Principal): Promise<{ waiting: TaskView[]; recent: TaskView[] }> {
    const waiting: TaskView[] = []
    const recent: TaskView[] = []
    for (const agent of await this.usable(principal)) {
      const list = (params: object) => agent.exchange.call(principal, 'ListTasks', { includeArtifacts: true, pageSize: 50, ...params }) as Promise<ListTasksResponse>
      for (const state of WAITING) waiting.push(...(await list({ status: state })).tasks.map((task) => this.#view(agent, task)))
      recent.push(...(await list({ pageSize: RECENT })).tasks.filter((task) => !isPaused(task.status.state)).map((task) => this.#view(agent, task)))
    }
    const newestFirst = (a: TaskView, b: TaskView) => (b.task.status.timestamp ?? '').localeCompare(a.task.status.timestamp ?? '')
    return { waiting: waiting.sort(newestFirst), recent: recent.sort(newestFirst).slice(0, RECENT) }
  }

  /** The person's task with this id on any of their agents; undefined exactly as for an unknown id. */
  async find(principal: Principal, taskId: string): Promise<TaskView | undefined> {
    for (const agent of await this.usable(principal)) {
      const task = await this.read(agent, principal, taskId)
      if (task) return this.#view(agent, task)
    }
    return undefined
  }

  /** GetTask as the person on one agent; undefined for a task they cannot see. */
  async read(agent: InboxAgent, principal: Principal, taskId: string): Promise<Task | undefined> {
    try {
      return (await agent.exchange.call(principal, 'GetTask', { id: taskId })) as Task
    } catch (error) {
      if (error instanceof A2AError && (error.reason === 'TASK_NOT_FOUND' || error.code === -32602)) return undefined
      throw error
    }
  }

  /** The person's answer, sent exactly as a SendMessage naming the task (same run, history, push and limits). */
  async answer(view: TaskView, principal: Principal, text: string, messageId: string, baseUrl: string): Promise<SendMessageResponse> {
    const message: Message = { messageId, role: 'ROLE_USER', taskId: view.task.id, contextId: view.task.contextId, parts: [{ text }] }
    return (await view.agent.exchange.call(principal, 'SendMessage', { message, configuration: { returnImmediately: true } }, undefined, baseUrl)) as SendMessageResponse
  }

  view(agent: InboxAgent, task: Task): TaskView {
    return this.#view(agent, task)
  }

  #view(agent: InboxAgent, task: Task): TaskView {
    const id = skillOf(task.history?.find((message) => message.role === 'ROLE_USER'))
    const skill = id ?? (agent.skills.size === 1 ? [...agent.skills.keys()][0]! : undefined)
    return { agent, task, skill: skill === undefined ? '' : (agent.skills.get(skill) ?? skill) }
  }
}

/** The skill a message named, as the router reads it: metadata.skill, else the first data part's `skill`. */
function skillOf(message: Message | undefined): string | undefined {
  const named = message?.metadata?.skill
  if (typeof named === 'string') return named
  for (const part of message?.parts ?? []) {
    if ('data' in part && part.data && typeof part.data === 'object' && typeof (part.data as { skill?: unknown }).skill === 'string') {
      return (part.data as { skill: string }).skill
    }
  }
  return undefined
}
