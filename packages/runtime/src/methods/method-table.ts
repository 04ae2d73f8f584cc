/**
 * The v1.0 methods, one row each: the name on the wire and the file that serves it. A new method
 * is a file exporting its {@link Method} and a row here. Methods whose capability is off answer
 * the errors the specification prescribes for that capability (each method's file says which).
 * @module
 */
import { GetExtendedAgentCard } from './extended-card.js'
import type { Method, MethodHandler, MethodOptions } from './method.js'
import { CreateTaskPushNotificationConfig, DeleteTaskPushNotificationConfig, GetTaskPushNotificationConfig, ListTaskPushNotificationConfigs } from './push-configs.js'
import { SendMessage } from './send-message.js'
import { SendStreamingMessage, SubscribeToTask } from './streaming.js'
import { CancelTask, GetTask, ListTasks } from './task-queries.js'

const METHODS: Record<string, Method> = {
  SendMessage,
  GetTask,
  ListTasks,
  CancelTask,
  SendStreamingMessage,
  SubscribeToTask,
  CreateTaskPushNotificationConfig,
  GetTaskPushNotificationConfig,
  ListTaskPushNotificationConfigs,
  DeleteTaskPushNotificationConfig,
  GetExtendedAgentCard,
}

/** Each method's handler for these settings, by wire name. */
export function methodTable(options: MethodOptions): Record<string, MethodHandler> {
  const table: Record<string, MethodHandler> = {}
  for (const [name, method] of Object.entries(METHODS)) table[name] = method(options)
  return table
}
