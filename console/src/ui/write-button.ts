// A button that changes data: disabled until write mode is on (docs/operations.md, "The operator console"), and
// disabled while its own request runs so a double click cannot send it twice.
import type { Signal } from '../state/signal.js'
import { h } from './dom.js'

export interface WriteButtonOptions {
  label: string
  onClick: () => Promise<void>
  danger?: boolean
  primary?: boolean
  /** The compact size, for buttons inside table rows. */
  small?: boolean
  /** Why it can never be used here (e.g. deleting `default`); shown as its title. */
  refusal?: string
}

export interface WriteButtons {
  button(options: WriteButtonOptions): HTMLButtonElement
  /** Stops following write mode (when the page is left). */
  dispose(): void
}

export function writeButtons(writeMode: Signal<boolean>): WriteButtons {
  const buttons = new Set<{ element: HTMLButtonElement; refusal: string | undefined; busy: boolean }>()
  const update = () => {
    for (const b of buttons) {
      if (!b.element.isConnected) { buttons.delete(b); continue }
      b.element.disabled = b.busy || b.refusal !== undefined || !writeMode.value
      b.element.title = b.refusal ?? (writeMode.value ? '' : 'Switch on write mode (top right) to use this')
    }
  }
  const stop = writeMode.subscribe(update)
  return {
    button(options) {
      const kind = options.danger === true ? 'danger' : options.primary === true ? 'primary' : null
      const element = h('button.button', { type: 'button', class: [kind, options.small === true ? 'small' : null].filter(Boolean).join(' ') || null, dataset: { write: '' } }, options.label)
      const entry = { element, refusal: options.refusal, busy: false }
      entry.element.addEventListener('click', () => {
        entry.busy = true
        update()
        void options.onClick().finally(() => { entry.busy = false; update() })
      })
      buttons.add(entry)
      // Set the state now; the element is not yet in the page, so not via update().
      entry.element.disabled = options.refusal !== undefined || !writeMode.value
      entry.element.title = options.refusal ?? (writeMode.value ? '' : 'Switch on write mode (top right) to use this')
      return entry.element
    },
    dispose: stop,
  }
}
