/**
 * SendMessage: a new task routed to a skill, a resume of a paused task, or (for a repeat of a
 * message the owner already sent: same messageId and same message) the task that message made.
 * A different message under a reused messageId runs as a new message. Every refusal happens
 * before anything is written.
 * @module
 */
import { randomUUID } from 'node:crypto'
import { isDeepStrictEqual } from 'node:util'
import { canSee, tierOf, type Viewer } from '../core/principal.js'
import { scrub } from '../log/logger.js'
import { freshLease } from '../run/leases.js'
import { retain } from '../run/retain.js'
import { agentMessage, now, withStatus } from '../run/task-changes.js'
import type { InsertTask } from '../run/run-writes.js'
import { TaskRun } from '../run/task-run.js'
import { LARGE_TEXT, nextTurn } from '../core/turns.js'
import { routeMessage } from '../skills/router.js'
import type { Skill } from '../skills/skill.js'
import type { Store, TaskRecord } from '../store/store.js'
import { capabilityOf } from '../store/capabilities.js'
import { RETRY_AFTER_SECONDS } from '../store/unavailable.js'
import { writeTask } from '../store/write.js'
import { A2AError } from '../wire/a2a-error.js'
import { extended } from '../wire/copy.js'
import { sendMessageParams, type SendMessageParams } from '../wire/params.js'
import { isPaused, isTerminal, type Message, type SendMessageResponse } from '../wire/types.js'
import type { ExchangeCore } from '../run/exchange-core.js'
import { parse, type Caller, type Method } from './method.js'
import { pushOnSend } from './push-on-send.js'
import { taskIdOf } from './task-id.js'
import { findVisible } from './task-queries.js'
import { toWireTask } from '../run/to-wire.js'

/** A send's hooks when it has none: one object for all of them (acceptMessage only reads it). */
const NO_HOOKS: AcceptHooks = Object.freeze({})

export const SendMessage: Method =
  ({ push }) =>
  async (core, caller, raw) => {
    const params = parse(core, sendMessageParams, raw)
    // Awaited only for a config to check: each await is a turn of the microtask queue.
    const attachPush = params.configuration?.taskPushNotificationConfig ? await pushOnSend(core, caller, params, push) : undefined
    return answerSend(core, await acceptMessage(core, caller, params, attachPush ? { attachPush } : NO_HOOKS), params)
  }

export interface AcceptHooks {
  /** Sees the task the moment it is created or resumed, before its run starts (streams subscribe here). */
  observe?: (record: TaskRecord) => void
  /**
   * Registers the message's push config on the task before its run starts: after a new task is
   * created (which is removed again if this fails), or before a paused task is resumed. On a
   * repeat of a message already accepted, registers it unless the task holds that config already.
   */
  attachPush?: (record: TaskRecord, options?: { repeat: true }) => Promise<void>
}

/** Accepts the message (creating or resuming a task) and returns the record to answer with. */
export async function acceptMessage(core: ExchangeCore, caller: Caller, params: SendMessageParams, hooks: AcceptHooks = {}): Promise<TaskRecord> {
  refuseUrlParts(core, params.message)
  const key = `${caller.viewer.owner}\u0000${params.message.messageId}`
  const earlier = core.accepting.get(key)
  // The same message id being accepted in this process already: this one waits until it is, then
  // finds its task (a repeat) or runs as a new message. A new task may be held until its run's
  // first turn ends, invisible to a lookup until then, so the wait covers the lookup too.
  const accepting = earlier ? earlier.catch(() => undefined).then(() => accept(core, caller, params, hooks)) : accept(core, caller, params, hooks)
  core.accepting.set(key, accepting)
  try {
    return await accepting
  } finally {
    if (core.accepting.get(key) === accepting) core.accepting.delete(key)
  }
}

async function accept(core: ExchangeCore, caller: Caller, params: SendMessageParams, hooks: AcceptHooks): Promise<TaskRecord> {
  const { message } = params
  const claims = claimsMessageId(core, message)
  const prior = claims ? undefined : await findRepeat(core, caller.viewer, message)
  if (prior) {
    await hooks.attachPush?.(prior, { repeat: true })
    return prior
  }
  try {
    return await (message.taskId ? resume(core, caller, message, message.taskId, hooks) : start(core, caller, params, hooks, claims))
  } catch (error) {
    // The same message sent at once to another replica won: its task took this message's id
    // (the store's key refused ours) or its resume took the paused task. Answer that task. Or
    // (claims) the owner's tasks held the id already: a repeat is answered with its task, and
    // another message under a reused id runs as a new one, as when looked for first.
    const taken = error instanceof MessageIdTakenError
    const winner = await findRepeat(core, caller.viewer, message).catch((lookup: unknown) => {
      if (taken) throw lookup
    })
    if (!winner && taken) return await start(core, caller, params, hooks, false)
    if (!winner) throw error
    await hooks.attachPush?.(winner, { repeat: true })
    return winner
  }
}

/**
 * Whether the new task's insert itself checks its message id (capability acceptOnce) instead
 * of a lookup first: only for a message without taskId, and only when nothing is claimed before
 * the insert (no run cap, no quota), since a repeat must take no run slot or turn, even briefly.
 */
const claimsMessageId = (core: ExchangeCore, message: Message): boolean =>
  !message.taskId && capabilityOf(core.store, 'acceptOnce') !== undefined && core.slots.limit < 0 && !core.quota?.counts

const findRepeat = async (core: ExchangeCore, viewer: Viewer, message: Message): Promise<TaskRecord | undefined> =>
  (await core.store.findByMessageId(viewer.owner, message.messageId)).find((r) => canSee(viewer, tierOf(r)) && isRepeatOf(message, r))

/**
 * Whether `message` repeats the one of the same messageId that made or resumed `record`: the same
 * parts and metadata, and no other task or context. Fields the first send left for the server to
 * fill (taskId, contextId) match when absent. A message no longer in the task's history is taken
 * as a repeat: nothing shows it differs.
 */
function isRepeatOf(message: Message, record: TaskRecord): boolean {
  const first = record.task.history?.find((m) => m.messageId === message.messageId && m.role === 'ROLE_USER')
  if (message.taskId !== undefined && message.taskId !== record.id) return false
  if (message.contextId !== undefined && message.contextId !== record.contextId) return false
  if (!first) return true
  return sameOnTheWire(message.parts, first.parts) && sameOnTheWire(message.metadata ?? {}, first.metadata ?? {})
}

/**
 * Whether `sent` is `stored` as JSON carries it: an in-process message may hold values with a
 * toJSON (a Date), stored as what that makes (its ISO text), and the task id hashes that too.
 */
const sameOnTheWire = (sent: unknown, stored: unknown): boolean => isDeepStrictEqual(sent, stored) || isDeepStrictEqual(JSON.parse(JSON.stringify(sent)), stored)

/** Waits for the run unless the caller asked to return immediately, then shapes the answer. */
export async function answerSend(core: ExchangeCore, record: TaskRecord, params: SendMessageParams): Promise<SendMessageResponse> {
  const configuration = params.configuration ?? {}
  if (configuration.returnImmediately) {
    return { task: toWireTask(record, { historyLength: configuration.historyLength }) }
  }
  const run = core.runs.get(record.id)
  // A run settled already (on a one-process store, most) has its answer: nothing to wait for.
  const over = isTerminal(record.task.status.state) || isPaused(record.task.status.state)
  let final = run ? await run.done : over ? record : await (core.remote?.turnEnded(record) ?? record)
  if (!run && !isTerminal(final.task.status.state) && !isPaused(final.task.status.state)) {
    // A run that was inserted mid-turn may have settled before this answer looked for it.
    final = (await core.store.get(record.id).catch(() => undefined)) ?? final
  }
  if (final.task.status.state === 'TASK_STATE_SUBMITTED') {
    // A run that could not start is gone by now: answer what the store holds (FAILED once
    // settled), or an error while it stays unsettled; the sweep settles it when its lease expires.
    final = (await core.store.get(record.id).catch(() => undefined)) ?? final
    if (run && final.task.status.state === 'TASK_STATE_SUBMITTED') {
      throw A2AError.unavailable(
        `Task ${record.id} could not be started: the agent's database is unreachable. Send the same message again (same messageId) in ${RETRY_AFTER_SECONDS} s`,
        RETRY_AFTER_SECONDS,
      )
    }
  }
  if (final.repliedWithMessage && final.task.status.message) return { message: final.task.status.message }
  return { task: toWireTask(final, { historyLength: configuration.historyLength }) }
}

/** A claiming insert found the message id among the owner's tasks (see acceptMessage): never reaches a caller. */
class MessageIdTakenError extends Error {
  constructor(record: TaskRecord) {
    super(`message id ${record.messageIds[0]} is taken`)
  }
}

/** Inserts a new task unless the owner's tasks hold its message id (capability acceptOnce). */
const insertUnlessAccepted =
  (core: ExchangeCore) =>
  async (record: TaskRecord): Promise<void> => {
    if (!(await capabilityOf(core.store, 'acceptOnce')!.createUnlessAccepted(record))) throw new MessageIdTakenError(record)
  }

/** `claims`: the task is inserted only while its message id is free (no repeat was looked for). */
async function start(core: ExchangeCore, caller: Caller, params: SendMessageParams, hooks: AcceptHooks, claims: boolean): Promise<TaskRecord> {
  const { message } = params
  const insert = claims ? insertUnlessAccepted(core) : undefined
  const { id, chars } = taskIdOf(caller.viewer, message)
  // Hashing a large message was one stage; the store's encoding of it is the next.
  if (chars >= LARGE_TEXT) await nextTurn()
  const contextId = message.contextId ?? randomUUID()
  const userMessage: Message = extended(message, { contextId, taskId: id })
  // Awaited only when there is something to wait for: each await is a turn of the microtask queue.
  const paused = core.paused ? await core.paused() : false
  const route = paused
    ? { rejection: `${core.agentName ?? 'This agent'} is paused and is not taking new tasks; send this message again once it is resumed` }
    : routeMessage(message, core.skills)
  const record: TaskRecord = {
    id,
    contextId,
    owner: caller.viewer.owner,
    tenant: caller.viewer.tenant,
    scope: caller.viewer.scope,
    skill: 'skill' in route ? route.skill.id : '',
    version: 1,
    task: { id, contextId, status: { state: 'TASK_STATE_SUBMITTED', timestamp: now() }, history: [userMessage] },
    messageIds: [message.messageId],
    createdAt: Date.now(),
    updatedAt: Date.now(),
  }
  if ('rejection' in route) {
    // Born terminal: the agent declines without running anything (a turn all the same).
    const rejected = { ...record, task: withStatus(record.task, 'TASK_STATE_REJECTED', agentMessage(record.task, route.rejection)).task }
    const undoTurn = core.quota?.counts ? await core.quota.admitTurn(caller.viewer, id, false) : undefined
    await (insert ? insert(rejected) : core.store.create(rejected)).catch(async (error: unknown) => {
      await undoTurn?.()
      throw error
    })
    hooks.observe?.(rejected)
    await retain(core, rejected)
    return rejected
  }
  refuseUnacceptableOutput(core, route.skill, params)
  // On a store that claims message ids the claim comes before the run slot: the same message sent
  // at once to another replica waits at the claim there and is answered with this task, having
  // taken no slot (it would otherwise hold one until refused, and push the owner past the cap).
  // Awaited only on a store that claims: each await is a turn of the microtask queue.
  const claimed = holdsClaimedTasks(core, hooks) ? await claimNewTask(core.store, record, claims) : undefined
  try {
    const claiming = claimRun(core, caller.viewer.owner, id)
    if (claiming) await claiming
  } catch (error) {
    claimed?.release()
    throw error
  }
  // Held by this replica's run from the first write: if the process stops, a sweep settles it.
  record.lease = freshLease(core)
  let undoTurn: (() => Promise<void>) | undefined
  let run: TaskRun | undefined
  try {
    // Awaited only when a quota counts: each await is a turn of the microtask queue.
    if (core.quota?.counts) undoTurn = await core.quota.admitTurn(caller.viewer, id, true)
    run = new TaskRun(core, record, route.skill, caller.principal, userMessage, caller.baseUrl, { new: true, insert: claimed?.insert ?? insert })
    if (claimed || holdsNewTasks(core, hooks)) {
      // Inserted by the run, once, in its latest state: the answer waits for that insert.
      void run.start()
      return await run.stored
    }
    await run.insert()
  } catch (error) {
    // A run refused its insert has freed its slot (and its claim) already.
    if (!run) {
      core.slots.release(caller.viewer.owner, id)
      claimed?.release()
    }
    await undoTurn?.()
    throw error
  }
  try {
    if (hooks.attachPush) await hooks.attachPush(record)
  } catch (error) {
    // As if the message never arrived: no task is left behind a refused config.
    run.discard()
    await undoTurn?.()
    await core.store.delete(record.id).catch(() => undefined)
    throw error
  }
  hooks.observe?.(record)
  void run.start()
  return record
}

/**
 * Whether a new task is held in the process until its run's first turn ends (see run/pending-writes.ts)
 * on a store no other process writes; and only when nothing is told about the task before its run
 * (a stream's first event, a push config's first notification), as each needs the task stored first.
 * On a store replicas share a message sent at once to two replicas must run on one only: there the
 * task is held only when the store claims its message id first ({@link holdsClaimedTasks}), else the
 * insert comes first, and the replica whose insert is refused never starts the handler.
 */
const holdsNewTasks = (core: ExchangeCore, hooks: AcceptHooks): boolean => capabilityOf(core.store, 'oneProcess') !== undefined && quietUntilRun(hooks)

/** Whether a new task is held after its store claimed its message id (capability claims). */
const holdsClaimedTasks = (core: ExchangeCore, hooks: AcceptHooks): boolean =>
  capabilityOf(core.store, 'claims') !== undefined && capabilityOf(core.store, 'oneProcess') === undefined && quietUntilRun(hooks)

/** Nothing is told about the new task before its run: no stream's first event, no push config's first notification. */
const quietUntilRun = (hooks: AcceptHooks): boolean => !hooks.observe && !hooks.attachPush

/**
 * Claims the new task's message id, then inserts it through the claim, once its run's first turn
 * ends: a message given at once to another replica waits there at the claim, then is refused
 * (MessageIdTakenError, answered with the winner) and never starts its handler.
 */
async function claimNewTask(store: Store, record: TaskRecord, unlessAccepted: boolean): Promise<{ insert: InsertTask; release(): void }> {
  const claim = await capabilityOf(store, 'claims')!.claimNewTask(record, unlessAccepted)
  if (!claim) throw new MessageIdTakenError(record)
  return {
    insert: async (latest) => {
      if (!(await claim.insert(latest))) throw new MessageIdTakenError(record)
    },
    release: () => claim.release(),
  }
}

async function resume(core: ExchangeCore, caller: Caller, message: Message, taskId: string, hooks: AcceptHooks): Promise<TaskRecord> {
  const record = await findVisible(core, caller.viewer, taskId)
  if (message.contextId !== undefined && message.contextId !== record.contextId) {
    throw A2AError.invalidParams('params.message.contextId', `does not match the contextId "${record.contextId}" of task ${taskId}; send that one or omit contextId`)
  }
  if (answersAnsweredQuestion(record)) {
    // Its question was answered a moment ago (by the calling agent, or a person in the inbox):
    // this answer joins the conversation too, while the run the first one resumed goes on.
    await hooks.attachPush?.(record)
    return joinAnswer(core, caller, record, message, extended(message, { contextId: record.contextId, taskId }), hooks)
  }
  refuseUnless(record)
  if (await core.paused?.()) {
    throw A2AError.unsupported(`${core.agentName ?? 'This agent'} is paused; task ${taskId} keeps its state and takes this answer once the agent is resumed`)
  }
  const skill = core.skills.get(record.skill)
  if (!skill) throw A2AError.unsupported(`Task ${taskId} was made by skill "${record.skill}", which this server no longer serves`)
  await claimRun(core, caller.viewer.owner, taskId)
  const userMessage: Message = extended(message, { contextId: record.contextId, taskId })
  let event
  let taken: TaskRecord
  try {
    await hooks.attachPush?.(record)
    const outcome = await writeTask(core.store, record, (current) => {
      if (!isPaused(current.task.status.state)) return null
      const next = withStatus(current.task, 'TASK_STATE_WORKING')
      event = next.event
      return {
        task: { ...next.task, history: [...(next.task.history ?? []), userMessage] },
        event: next.event,
        messageIds: [...current.messageIds, message.messageId],
        lease: freshLease(core),
      }
    })
    if ('gone' in outcome) throw A2AError.taskNotFound(taskId)
    if ('written' in outcome) {
      core.events.publish({ taskId, version: outcome.written.version, response: event! })
      hooks.observe?.(outcome.written)
      // Counted among the occupied tasks while it works again, though an answer is never refused.
      await core.quota?.occupy(outcome.written).catch((error: unknown) => core.logger.error(`a2a: counting task ${taskId} as occupied failed: ${scrub(error)}`))
      void new TaskRun(core, outcome.written, skill, caller.principal, userMessage, caller.baseUrl).start()
      return outcome.written
    }
    taken = outcome.declined
  } catch (error) {
    core.slots.release(caller.viewer.owner, taskId)
    throw error
  }
  // Read paused, found taken: another answer to the same question (a person in the inbox, the
  // calling agent) resumed it first. This one joins the conversation after it rather than failing.
  core.slots.release(caller.viewer.owner, taskId)
  return joinAnswer(core, caller, taken, message, userMessage, hooks)
}

/**
 * A second answer to a question another answer took (sent at once, or while the run the first
 * resumed still works): added to the task's history (and its message ids, so a retry is a repeat)
 * in arrival order, the run going on. Its event
 * restates the current status, so followers and the inbox hear of the change. A task that asks
 * again meanwhile takes it as its next turn.
 */
async function joinAnswer(core: ExchangeCore, caller: Caller, record: TaskRecord, message: Message, userMessage: Message, hooks: AcceptHooks): Promise<TaskRecord> {
  let event
  const outcome = await writeTask(core.store, record, (current) => {
    if (isPaused(current.task.status.state) || current.messageIds.includes(message.messageId)) return null
    const { status } = current.task
    event = { statusUpdate: { taskId: current.id, contextId: current.contextId, status } }
    return { task: { ...current.task, history: [...(current.task.history ?? []), userMessage] }, event, messageIds: [...current.messageIds, message.messageId] }
  })
  if ('gone' in outcome) throw A2AError.taskNotFound(record.id)
  // The same message resumed it on another replica: accept() answers that task as a repeat.
  if ('declined' in outcome && outcome.declined.messageIds.includes(message.messageId)) {
    throw A2AError.unsupported(`Task ${record.id} has taken message ${message.messageId} already; send a new messageId for a new answer`)
  }
  if ('declined' in outcome) return resume(core, caller, message, record.id, hooks)
  core.events.publish({ taskId: record.id, version: outcome.written.version, response: event! })
  hooks.observe?.(outcome.written)
  return outcome.written
}

/** A task working again after an answer to its question (it has taken more than its first message). */
const answersAnsweredQuestion = (record: TaskRecord): boolean => record.messageIds.length > 1 && !isTerminal(record.task.status.state) && !isPaused(record.task.status.state)

/** Only a paused task takes a message. */
function refuseUnless(record: TaskRecord): void {
  const { state } = record.task.status
  if (isTerminal(state)) {
    throw A2AError.unsupported(
      `Task ${record.id} is ${state} and takes no more messages. Start a new task in the same conversation: send this message without taskId and with contextId "${record.contextId}"`,
    )
  }
  if (!isPaused(state)) {
    throw A2AError.unsupported(`Task ${record.id} is still ${state}; send a message once it asks for input, or cancel it`)
  }
}

/** Takes a run slot or throws; a promise only when the slot is counted elsewhere (shared counters) too. */
function claimRun(core: ExchangeCore, owner: string, taskId: string): Promise<void> | undefined {
  if (core.closing) throw A2AError.unsupported('The server is shutting down and starts no new runs; retry against another instance')
  const claimed = core.slots.claim(owner, taskId)
  if (claimed === true) return undefined
  if (claimed === false) throw slotsTaken(core)
  return claimed.then((taken) => {
    if (!taken) throw slotsTaken(core)
  })
}

const slotsTaken = (core: ExchangeCore): A2AError =>
  A2AError.unsupported(`Maximum concurrent task runs reached (${core.slots.limit} per owner); retry when one of your tasks has finished`)

function refuseUrlParts(core: ExchangeCore, message: Message): void {
  if (core.acceptUrlParts) return
  const index = message.parts.findIndex((p) => 'url' in p)
  if (index >= 0) {
    throw new A2AError('CONTENT_TYPE_NOT_SUPPORTED', `params.message.parts[${index}]: url parts are not accepted here; send the content as text, data or raw (base64) bytes`, {
      metadata: { field: `params.message.parts[${index}].url` },
    })
  }
}

function refuseUnacceptableOutput(core: ExchangeCore, skill: Skill, params: SendMessageParams): void {
  const accepted = params.configuration?.acceptedOutputModes
  if (!accepted?.length) return
  const produced = skill.outputModes ?? core.defaultOutputModes
  if (produced.some((mode) => accepted.some((want) => mediaTypeMatches(want, mode)))) return
  throw new A2AError(
    'CONTENT_TYPE_NOT_SUPPORTED',
    `Skill "${skill.id}" produces ${produced.join(', ')}, none of which is in configuration.acceptedOutputModes (${accepted.join(', ')})`,
    { metadata: { skill: skill.id } },
  )
}

const mediaTypeMatches = (pattern: string, mediaType: string): boolean => {
  const [type, subtype] = pattern.toLowerCase().split(';')[0]!.trim().split('/')
  const [mType, mSubtype] = mediaType.toLowerCase().split('/')
  return (type === '*' || type === mType) && (subtype === '*' || subtype === mSubtype)
}
