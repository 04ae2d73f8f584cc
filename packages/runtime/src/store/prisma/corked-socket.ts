/**
 * The socket PostgresStore's connections write through: every write of one tick leaves in one
 * syscall. node-postgres writes each message of a statement on its own (Parse, Bind, Describe,
 * Execute, Sync: five writes, five syscalls); corked until the next tick they go out together,
 * which under load was a fifth of the store's CPU per SendMessage. Given to pg as its `stream`.
 * @module
 */
import { Socket } from 'node:net'

const uncork = (socket: Socket) => socket.uncork()

/** A socket whose writes within one tick are corked together. */
export function corkedSocket(): Socket {
  const socket = new Socket()
  const write = socket.write.bind(socket) as (...args: unknown[]) => boolean
  socket.write = ((...args: unknown[]) => {
    if (socket.writableCorked === 0) {
      socket.cork()
      process.nextTick(uncork, socket)
    }
    return write(...args)
  }) as Socket['write']
  return socket
}
