// Lingering close for refusals sent before the request body was read (an upload refused at its headers or
// mid-stream). Closing a socket with unread bytes in its receive buffer makes the kernel answer with RST, and a
// client that is still sending can then lose our answer from its own receive buffer: it sees "connection reset"
// instead of the 401/400/413. So, as web servers have long done (Apache's lingering_close), the answer goes out
// first, then whatever the client still sends is read and thrown away for a short, bounded while (a client that
// has read the answer closes the connection itself), and only then is the socket closed. Nothing read here reaches
// a parser of ours or the disk. (Half-closing first does not work here: ending the socket's write side makes Node
// destroy it at once.)
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';

/** How long a refused upload may keep sending after our answer, and how much of it is read and dropped. */
export const LINGER_MS = 2_000;
export const LINGER_MAX_BYTES = 64 * 2 ** 20;

const armed = new WeakSet<Socket>();

/** Whether the socket is lingering after a refusal: its request already has an answer, so write nothing more. */
export function isLingering(socket: Socket): boolean {
  return armed.has(socket);
}

/**
 * Call when refusing a request whose body has not been read, together with `Connection: close`. Once the answer is
 * written, the rest of the body is read and dropped (unpiped from any consumer first), and Node's end-of-response
 * close (`destroySoon`) is deferred until the client has sent everything, `ms` have passed, or `maxBytes` more bytes
 * have come, whichever is first.
 */
export function lingerOnClose(req: IncomingMessage, res: ServerResponse, ms = LINGER_MS, maxBytes = LINGER_MAX_BYTES): void {
  const socket = req.socket;
  // (light-my-request's injected requests have a socket stand-in without destroySoon: nothing to linger on)
  if (!socket || socket.destroyed || armed.has(socket) || typeof socket.destroySoon !== 'function') return;
  armed.add(socket);
  let drained = 0;
  res.once('finish', () => {
    req.unpipe(); // a multipart parser that was reading the upload gets nothing more
    req.on('data', (chunk: Buffer) => {
      drained += chunk.length;
      if (drained > maxBytes) socket.destroy();
    });
    req.on('error', () => socket.destroy());
    req.resume();
  });
  const original = socket.destroySoon.bind(socket);
  socket.destroySoon = function lingeringDestroySoon(this: Socket): void {
    if (this.destroyed) return;
    if (req.complete) return original(); // nothing left unread: end, then destroy once written
    let done = false;
    const close = (): void => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      original();
    };
    const timer = setTimeout(close, ms);
    timer.unref();
    this.once('close', () => clearTimeout(timer));
    req.once('end', close); // the client has sent everything: the kernel has nothing left to reset
  };
}
