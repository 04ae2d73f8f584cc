/**
 * The socket PostgresStore's connections write through: every write of one tick leaves in one
 * syscall. node-postgres corks each statement's messages (Bind, Describe, Execute, Sync) but
 * uncorks after each statement, so a group commit's BEGIN, statements and COMMIT left in one
 * write each; corked until the next tick they go out together. Given to pg as its `stream`.
 * @module
 */
import { Socket } from 'node:net'

const uncork = (socket: Socket) => socket.uncork()

const write = Socket.prototype.write as (this: Socket, ...args: unknown[]) => boolean

function corkingWrite(this: Socket, ...args: unknown[]): boolean {
  if (this.writableCorked === 0) {
    this.cork()
    process.nextTick(uncork, this)
  }
  return write.apply(this, args)
}

/** A socket whose writes within one tick are corked together. */
export function corkedSocket(): Socket {
  const socket = new Socket()
  socket.write = corkingWrite as Socket['write']
  // net.Socket's connect() sets the socket's own write back to Socket.prototype.write: corking goes on again after it.
  const connect = socket.connect.bind(socket) as (...args: unknown[]) => Socket
  socket.connect = ((...args: unknown[]) => {
    connect(...args)
    socket.write = corkingWrite as Socket['write']
    return socket
  }) as Socket['connect']
  return socket
}
