// A second descriptor of an open file (close-on-exec), from the binding: Node has no
// dup(). `serve` gives each worker thread its own descriptor of the listening socket,
// which that thread's server owns and closes (docs/architecture.md, "Every core").
import { mapSync } from './engine-error.js'
import { native } from './native.js'

export function duplicateFd(fd: number): number {
  return mapSync(() => native.dupFd(fd))
}
