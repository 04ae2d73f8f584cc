/**
 * The exchange's shared internals, handed to each method and run. Not public API.
 * @module
 */
import type { Logger } from '../log/logger.js'
import type { PushDelivery } from '../push/push-delivery.js'
import type { TaskRun } from './task-run.js'
import type { ArtifactOffload } from '../artifacts/offload.js'
import type { Principal, Viewer } from '../core/principal.js'
import type { Quota } from '../limits/quota.js'
import type { RemoteWrites } from './remote-writes.js'
import type { RunSlots } from './run-slots.js'
import type { TrimPacing } from './trim-pacing.js'
import type { Skill } from '../skills/skill.js'
import type { Store } from '../store/store.js'
import type { TaskEvents } from './task-events.js'
import type { JobSetup } from './enqueue-job.js'

export interface Limits {
  taskTimeoutMs: number
  /** Settled tasks kept per tier; negative = the host owns retention. */
  settledRetention: number
  /** Paused tasks kept per tier; negative = the host owns retention. */
  pausedRetention: number
  /** Bytes of tasks one ListTasks page may hold. */
  listTasksBytes: number
}

export interface ExchangeCore {
  store: Store
  skills: ReadonlyMap<string, Skill>
  events: TaskEvents
  runs: Map<string, TaskRun>
  slots: RunSlots
  /** When a settle trims its tier, on a store whose trims are paced. */
  trims: TrimPacing
  /** Retention trims under way, which a shutdown waits for. */
  retaining: Set<Promise<void>>
  /** Where oversized artifact parts go; absent in cores built by hand. */
  artifacts?: ArtifactOffload
  /** The isolation coordinates a caller gets (per agent under an AgentHost); absent: viewerOf. */
  viewerOf?: (principal: Principal) => Viewer
  /** Whether the agent is paused (AgentHost); absent: never. */
  paused?: () => boolean | Promise<boolean>
  /** The hosted agent's id (AgentHost); absent for a lone exchange. */
  agentId?: string
  /** The agent's name, for messages. */
  agentName?: string
  /** The turn and occupied-task caps (no-ops when unset). */
  quota?: Quota
  logger: Logger
  limits: Limits
  acceptUrlParts: boolean
  defaultOutputModes: readonly string[]
  /** Sends being accepted, by owner and messageId, so a concurrent retry joins the first. */
  accepting: Map<string, Promise<unknown>>
  /** Delivers events to push configs; absent when push notifications are off. */
  push?: PushDelivery
  /** This process's id in run leases: unique among the replicas on one store. */
  replica: string
  /** How long a run's lease holds unless renewed, in ms. */
  leaseMs: number
  /** Writes of other replicas (store notifications); absent in cores built by hand. */
  remote?: RemoteWrites
  /** The inbox's path when one serves this agent: each artifact's metadata.webUrl points at its page there. */
  artifactPages?: string
  /** The job queue and the jobs skills may enqueue (ExchangeOptions.jobs); absent: ctx.enqueue refuses. */
  jobs?: JobSetup
  /** Set by shutdown: no new run is claimed. */
  closing: boolean
}
