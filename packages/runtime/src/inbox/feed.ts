/**
 * The inbox's live updates: one SSE response per open page. The feed hears every task write
 * through the agents' `watchTasks` (this process's events, and other replicas' through the
 * store's notifications) while a page is open, coalesces a run's burst of writes, and sends each
 * page the changed task it may see, read once per page as that person (GetTask, the exchange's
 * isolation). No page polls the database; an idle feed watches nothing.
 * @module
 */
import type { IncomingMessage, ServerResponse } from 'node:http'
import { encode, encodeComment } from 'eventsource-encoder'
import type { Principal } from '../core/principal.js'
import { scrub, type Logger } from '../log/logger.js'
import type { ListTasksResponse } from '../wire/types.js'
import { joinKeepAlive, leaveKeepAlive, type KeepAliveMember } from '../stream/keep-alive-clock.js'
import type { InboxAgent, InboxAgents, TaskView } from './agents.js'
import { stateLabel } from './pages.js'

const COALESCE_MS = 25

export interface FeedPage {
  principal: Principal
  /** Set on a task's own page: only that task is sent. */
  taskId?: string
  /** The HTML that replaces the task on this page. */
  render(view: TaskView): Promise<string>
  /** Whether the person is still signed in (checked at each keep-alive). */
  stillSignedIn(): Promise<boolean>
  /** When the page read its tasks: what changed since is sent first, so nothing between that read and this feed is missed. */
  since?: string
}

class FeedClient implements KeepAliveMember {
  constructor(
    readonly page: FeedPage,
    readonly response: ServerResponse,
    private readonly feed: InboxFeed,
  ) {}

  keepAlive(): void {
    this.response.write(encodeComment('keep-alive'))
    this.page.stillSignedIn().then(
      (signed) => signed || this.close(),
      () => undefined, // a lookup that failed is tried again at the next beat
    )
  }

  send(event: string, data: unknown): void {
    this.response.write(encode({ event, data: JSON.stringify(data) }))
  }

  close(): void {
    this.feed.leave(this)
    this.response.end()
  }
}

export class InboxFeed {
  readonly #clients = new Set<FeedClient>()
  readonly #changed = new Map<InboxAgent, Set<string>>()
  #unwatch: (() => void)[] = []
  #flushing: NodeJS.Timeout | undefined

  constructor(
    private readonly agents: InboxAgents,
    private readonly keepAliveMs: number,
    private readonly logger: Logger,
  ) {}

  open(request: IncomingMessage, response: ServerResponse, page: FeedPage): void {
    response.writeHead(200, {
      'Content-Type': 'text/event-stream; charset=utf-8',
      'Cache-Control': 'no-store',
      'X-Accel-Buffering': 'no',
      'X-Content-Type-Options': 'nosniff',
    })
    response.write(encodeComment('inbox'))
    const client = new FeedClient(page, response, this)
    if (this.#clients.size === 0) this.#watch()
    this.#clients.add(client)
    joinKeepAlive(this.keepAliveMs, client)
    request.once('close', () => this.leave(client))
    if (page.since && !Number.isNaN(Date.parse(page.since))) {
      void this.#catchUp(client, page.since).catch((error: unknown) => this.logger.warn(`a2a inbox: a live update was not sent: ${scrub(error)}`))
    }
  }

  /** The page's tasks written since it read them (its own task, or the person's tasks on every agent). */
  async #catchUp(client: FeedClient, since: string): Promise<void> {
    const { page } = client
    const changed: [InboxAgent, Set<string>][] = []
    for (const agent of await this.agents.usable(page.principal)) {
      const ids =
        page.taskId !== undefined
          ? [page.taskId]
          : ((await agent.exchange.call(page.principal, 'ListTasks', { statusTimestampAfter: since, pageSize: 50 })) as ListTasksResponse).tasks.map((task) => task.id)
      changed.push([agent, new Set(ids)])
    }
    await this.#tell(client, changed)
  }

  leave(client: FeedClient): void {
    if (!this.#clients.delete(client)) return
    leaveKeepAlive(this.keepAliveMs, client)
    if (this.#clients.size === 0) this.#stop()
  }

  /** Ends every open page's feed (shutdown). */
  close(): void {
    for (const client of [...this.#clients]) client.close()
  }

  #watch(): void {
    this.#unwatch = this.agents.all.map((agent) =>
      agent.exchange.watchTasks((change) => {
        if ('shutdown' in change) return this.close()
        if ('resync' in change) return this.#resync()
        let ids = this.#changed.get(agent)
        if (!ids) this.#changed.set(agent, (ids = new Set()))
        ids.add(change.taskId)
        this.#flushing ??= setTimeout(() => void this.#flush(), COALESCE_MS)
      }),
    )
  }

  #stop(): void {
    for (const unwatch of this.#unwatch) unwatch()
    this.#unwatch = []
    clearTimeout(this.#flushing)
    this.#flushing = undefined
    this.#changed.clear()
  }

  /** Some writes may have been missed (a listening connection came back): pages read themselves again. */
  #resync(): void {
    for (const client of this.#clients) client.send('resync', {})
  }

  async #flush(): Promise<void> {
    this.#flushing = undefined
    const changed = [...this.#changed]
    this.#changed.clear()
    await Promise.all(
      [...this.#clients].map((client) =>
        this.#tell(client, changed).catch((error: unknown) => {
          this.logger.warn(`a2a inbox: a live update was not sent: ${scrub(error)}`)
        }),
      ),
    )
  }

  async #tell(client: FeedClient, changed: [InboxAgent, Set<string>][]): Promise<void> {
    const { page } = client
    const usable = new Set(await this.agents.usable(page.principal))
    for (const [agent, ids] of changed) {
      if (!usable.has(agent)) continue
      for (const id of ids) {
        if (page.taskId !== undefined && page.taskId !== id) continue
        // As this person: another owner's or tenant's task reads as unknown and is never sent.
        const task = await this.agents.read(agent, page.principal, id)
        if (!task || !this.#clients.has(client)) continue
        const view = this.agents.view(agent, task)
        const waiting = task.status.state === 'TASK_STATE_INPUT_REQUIRED' || task.status.state === 'TASK_STATE_AUTH_REQUIRED'
        const announce = `${view.skill || 'Task'} · ${agent.name}: ${stateLabel(task.status.state)}`
        client.send('task', { id, state: task.status.state, waiting, announce, html: await page.render(view) })
      }
    }
  }
}
