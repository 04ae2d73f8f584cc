/**
 * An in-process stand-in for a POST request whose body the HTTP parser already holds whole: the
 * parts of IncomingMessage the runtime's routes read (send-cpu.mjs, stream-cpu.mjs). Plain
 * JavaScript, for scripts that run without tsx under callgrind.
 */
export function heldRequest(url, headers, body) {
  return {
    method: 'POST',
    url,
    // Not a spread that adds a member, which gives every copy a hidden class of its own on Node 20 (see wire/copy.ts).
    headers: Object.assign(Object.assign({}, headers), { 'content-length': String(body.length) }),
    socket: {},
    complete: true,
    readableDidRead: false,
    readableEnded: false,
    readableLength: body.length,
    read: () => body,
  }
}
