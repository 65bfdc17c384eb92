// Short notices in the corner: the server's message after an operation, or why it
// failed. Errors stay until dismissed; the rest fade after a few seconds.
import { h } from './dom.js'

export type ToastKind = 'ok' | 'error' | 'info'

const visible_ms = 5000

export function toast(message: string, kind: ToastKind = 'info'): void {
  let stack = document.querySelector('.toasts')
  if (stack === null) {
    stack = h('div.toasts', { role: 'status', 'aria-live': 'polite' })
    document.body.append(stack)
  }
  const item = h(`div.toast.${kind}`, null,
    h('span.toast-text', null, message),
    h('button.toast-close', { type: 'button', 'aria-label': 'Dismiss', onclick: () => item.remove() }, '×'),
  )
  stack.append(item)
  if (kind !== 'error') setTimeout(() => item.remove(), visible_ms)
}
