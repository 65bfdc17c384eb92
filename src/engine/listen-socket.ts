// A listening TCP socket with SO_REUSEPORT, from the binding (native/src/listen.rs):
// every thread of `serve` listens on one of its own on the same address, and the kernel
// spreads new connections over them (docs/architecture.md, "Every core").
import { mapSync } from './engine-error.js'
import { native } from './native.js'

const errno_codes: Record<number, string> = { 98: 'EADDRINUSE', 13: 'EACCES', 99: 'EADDRNOTAVAIL' }

/** The listening socket's descriptor; throws an Error whose `code` is the errno's name. */
export function listenSocket(host: string, port: number, backlog = 511): number {
  const fd = mapSync(() => native.listenSocket(host, port, backlog))
  if (fd >= 0) return fd
  const code = errno_codes[-fd] ?? `errno ${-fd}`
  throw Object.assign(new Error(`cannot listen on ${host}:${port}: ${code}`), { code })
}
