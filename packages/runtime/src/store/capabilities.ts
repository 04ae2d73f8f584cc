/**
 * What a store may add to the core (store.ts), by name. A store declares the capabilities it has
 * (`capabilities: ['filtersTenant', 'leases', …]`) and implements each with its own members, as
 * {@link Capabilities} lists them; the exchange asks for one by name (`capabilityOf(store,
 * 'leases')`) and, without it, does without (runtime README, "Writing a store", says how). The
 * conformance suite checks each declared capability in a section of its own.
 *
 * A store written before capabilities (its `capabilities` absent or an object of flags) is read
 * the old way: a capability is there when its optional members all are (`renewLeases` and
 * `expiredRuns` for leases), a marker when its flag is true.
 * @module
 */
import type { ArtifactFiles } from '../core/artifact-files.js'
import type { LimitCounters } from '../core/counters.js'
import type { Viewer } from '../core/principal.js'
import type { PgBossJobRow } from './job-row.js'
import type { NewTaskClaim, StoredEvent, TaskNote, TaskRecord } from './records.js'

/**
 * What a store written before capabilities declared: flags for the markers, beside optional
 * members. A store whose `capabilities` is this object (or absent) is read the old way.
 */
export interface CapabilityFlags {
  filtersTenant?: boolean
  filtersScope?: boolean
  oneProcess?: boolean
  pacedTrims?: boolean
}

/** What a lookup reads of a store: its declaration, and the members it names. */
interface Declaring {
  readonly capabilities?: readonly CapabilityName[] | CapabilityFlags
}

/**
 * Committed task writes of every process on the store's database, as they commit (PostgresStore:
 * LISTEN/NOTIFY). The exchange cuts a run another replica canceled and wakes the followers of a
 * task another replica runs; they read the store, notes carry no task.
 */
export interface TaskNotifications {
  /**
   * Hears every note from now on; the first listener opens the listening connection and the last
   * to leave closes it. After a reconnect every listener hears `resync`.
   */
  listen(listener: (note: TaskNote) => void): () => void
  /** False while the listening connection is down (followers read the store on a timer meanwhile). */
  readonly live: boolean
}

/** A capability that is a promise about the core's behaviour, with no members of its own. */
type Marker = Record<never, never>

/** Each capability: the members a store that declares it has. */
export interface Capabilities {
  /** `list` honours `ListQuery.tenant`. Without it the exchange lists the owner's tasks and filters them itself. */
  filtersTenant: Marker
  /** `list` honours `ListQuery.scope`. Without it the exchange lists the owner's tasks and filters them itself. */
  filtersScope: Marker
  /**
   * No other process writes this store's tasks (MemoryStore; SqliteStore, one process per file).
   * The exchange then holds a new task in the process while its run's first turn lasts and
   * creates it once, in its latest state (run/pending-writes.ts). Without it a new task is stored
   * before its run starts, so a message sent at once to two replicas runs once.
   */
  oneProcess: Marker
  /** A new task's insert checks its message ids itself: one call where the exchange would look first, then create. */
  acceptOnce: {
    /**
     * Creates the record unless one of the owner's records has accepted one of its message ids;
     * then stores nothing and resolves false. Rejects as create does.
     */
    createUnlessAccepted(record: TaskRecord): Promise<boolean>
  }
  /**
   * On a store replicas share: a new task's message id is claimed before its run starts, and the
   * task inserted once, in the state its run's first turn leaves it, as on a oneProcess store.
   * Without it (and without oneProcess) the task is inserted before its run and updated after.
   */
  claims: {
    /**
     * Takes the new record's one message id for a run this process is about to start. Resolves
     * undefined when the id is taken: with `unlessAccepted` by any of the owner's tasks (as
     * createUnlessAccepted); else only by this very task, the same message given to another
     * replica at once, which waits for that replica's insert and then loses, before its handler
     * starts. The claim commits with the insert: a process that stops between them leaves neither.
     * The caller inserts or releases it soon (a claim is held for about a second at most).
     */
    claimNewTask(record: TaskRecord, unlessAccepted: boolean): Promise<NewTaskClaim | undefined>
  }
  /** Writes of other processes on the same database as they commit. Without it followers poll the store. */
  notifications: { readonly notifications: TaskNotifications }
  /**
   * The events of task writes are kept a while (TaskChanges.event and events), so a follower on
   * another replica sends every event. Without it such a follower sends each version it reads as the task.
   */
  keptEvents: {
    /** The kept events of the task after `version`, oldest first; a follower that finds a gap sends the task. */
    eventsSince(taskId: string, version: number): Promise<StoredEvent[]>
  }
  /**
   * Runs hold leases their replica renews; a sweep on any replica settles FAILED the tasks whose
   * lease expired (their process stopped). Without it a stopped process's tasks stay as they were.
   */
  leases: {
    /** Moves the lease of each of these tasks that `runner` holds to `until`, leaving the version alone; others are left alone. */
    renewLeases(runner: string, taskIds: readonly string[], until: number): Promise<void>
    /**
     * Up to `limit` submitted or working tasks whose lease expired before `now`, or which have none
     * (written by a runtime without leases), oldest lease first: what the sweep settles.
     */
    expiredRuns(now: number, limit: number): Promise<TaskRecord[]>
  }
  /** The store can tell without a query that a write's event goes to no push config. Without it each event costs a lookup. */
  pushHints: {
    /**
     * True when the store can tell at once, without a query, that the event of the task's write
     * that made `version` goes to no config; false when it cannot tell so.
     */
    noPushConfigsFor(taskId: string, version: number): boolean
  }
  /**
   * The push outbox's rows are written in the same transaction as the task write whose event
   * they carry (PostgresStore, MysqlStore), so a crash between the two cannot lose the event.
   * Without it the outbox writes them right after the task write.
   */
  pushOutbox: {
    /**
     * From now on writes the outbox's rows with each task write carrying an event; resolves false,
     * changing nothing, when its table is not in the store's database. `outbox` names it as the
     * outbox does: PushOutbox its schema (`<outbox>.outbox`), MysqlPushOutbox its table.
     */
    queuePushOutbox(outbox: string): Promise<boolean>
    /** The configs whose outbox rows the write that made `version` wrote with it; undefined when it wrote none. */
    outboxedFor(taskId: string, version: number): string[] | undefined
  }
  /**
   * ctx.enqueue's job is inserted by the task's WORKING write itself (TaskChanges.job), so both
   * land or neither (PostgresStore, with PgBossJobQueue on its database). Without it the job is
   * queued first, then the task written (run/enqueue-job.ts says why that order is safe).
   */
  jobRows: {
    /** Whether the store can insert this job's row with a task write: its table is in the store's own database. */
    writesJobRow(job: PgBossJobRow): Promise<boolean>
  }
  /** Retention in one call. Without it the exchange trims a tier by listing it and deleting each task. */
  trims: {
    /**
     * Deletes the oldest settled (terminal) records of exactly this tier beyond `keep`, with their
     * push configs, and returns their ids.
     */
    trimSettled(tier: Viewer, keep: number): Promise<string[]>
  }
  /**
   * A trim is a statement and a commit of its own that reads the whole tier (the SQL stores): the
   * exchange trims a tier at its first settle and then at every ⌊bound / 8⌋-th settle in this
   * process. Without it every settle trims.
   */
  pacedTrims: Marker
  /** Limit counters in the store's database, shared by the replicas on it. Without it limits count per process. */
  counters: { readonly counters: LimitCounters }
  /** Oversized artifact content kept in the store's database. Without it it is kept in the process. */
  artifactFiles: { readonly artifactFiles: ArtifactFiles }
}

export type CapabilityName = keyof Capabilities

/** Each capability's members, as a lookup checks them: methods, or objects. */
const MEMBERS: { readonly [K in CapabilityName]: readonly (readonly [member: string, kind: 'function' | 'object'])[] } = {
  filtersTenant: [],
  filtersScope: [],
  oneProcess: [],
  acceptOnce: [['createUnlessAccepted', 'function']],
  claims: [['claimNewTask', 'function']],
  notifications: [['notifications', 'object']],
  keptEvents: [['eventsSince', 'function']],
  leases: [
    ['renewLeases', 'function'],
    ['expiredRuns', 'function'],
  ],
  pushHints: [['noPushConfigsFor', 'function']],
  pushOutbox: [
    ['queuePushOutbox', 'function'],
    ['outboxedFor', 'function'],
  ],
  jobRows: [['writesJobRow', 'function']],
  trims: [['trimSettled', 'function']],
  pacedTrims: [],
  counters: [['counters', 'object']],
  artifactFiles: [['artifactFiles', 'object']],
}

/** Every capability's name, in the order the README and the conformance suite list them. */
export const CAPABILITY_NAMES = Object.keys(MEMBERS) as readonly CapabilityName[]

/** Markers an old-style store sets as flags of the same name (see StoreCapabilities). */
const FLAGS = new Set<CapabilityName>(['filtersTenant', 'filtersScope', 'oneProcess', 'pacedTrims'])

/** Capabilities that mean nothing without another one. */
const NEEDS: Partial<Record<CapabilityName, CapabilityName>> = { pacedTrims: 'trims' }

const found = new WeakMap<object, ReadonlySet<CapabilityName>>()

/**
 * The store, as one with capability `name`, when it has it; undefined when not. Looked up once per
 * store (the answer is kept): a store's capabilities do not change once the exchange uses it.
 * Throws a TypeError naming the fix when the store declares a capability it does not implement.
 */
export function capabilityOf<S extends Declaring, K extends CapabilityName>(store: S, name: K): (S & Capabilities[K]) | undefined {
  return capabilitiesOf(store).has(name) ? (store as S & Capabilities[K]) : undefined
}

/** The capabilities the store has (see {@link capabilityOf}). */
export function capabilitiesOf(store: Declaring): ReadonlySet<CapabilityName> {
  let names = found.get(store)
  if (names === undefined) found.set(store, (names = resolve(store)))
  return names
}

const has = (store: Declaring, member: string, kind: 'function' | 'object'): boolean => {
  const value = (store as unknown as Record<string, unknown>)[member]
  return kind === 'function' ? typeof value === 'function' : typeof value === 'object' && value !== null
}

function resolve(store: Declaring): ReadonlySet<CapabilityName> {
  const declared = store.capabilities
  if (!Array.isArray(declared)) {
    // Old style: flags for the markers, optional members for the rest.
    const flags = (declared ?? {}) as CapabilityFlags
    return new Set(
      CAPABILITY_NAMES.filter((name) => (FLAGS.has(name) ? flags[name as keyof CapabilityFlags] === true : MEMBERS[name].every(([member, kind]) => has(store, member, kind)))),
    )
  }
  const storeName = store.constructor?.name && store.constructor !== Object ? store.constructor.name : 'the store'
  const names = new Set<CapabilityName>()
  for (const name of declared as readonly string[]) {
    if (!(name in MEMBERS))
      throw new TypeError(`${storeName} declares ${JSON.stringify(name)}, which is not a store capability; declare only these: ${CAPABILITY_NAMES.join(', ')}`)
    const missing = MEMBERS[name as CapabilityName].filter(([member, kind]) => !has(store, member, kind)).map(([member, kind]) => (kind === 'function' ? `${member}()` : member))
    if (missing.length > 0)
      throw new TypeError(
        `${storeName} declares the capability ${name} but has no ${missing.join(' or ')}: implement ${missing.length > 1 ? 'them' : 'it'}, or leave ${name} out of its capabilities`,
      )
    names.add(name as CapabilityName)
  }
  for (const name of names) {
    const needed = NEEDS[name]
    if (needed && !names.has(needed))
      throw new TypeError(`${storeName} declares the capability ${name} without ${needed}, which it qualifies: declare ${needed} too, or leave ${name} out`)
  }
  return names
}
