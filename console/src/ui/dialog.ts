// In-page dialogs (a <dialog> element, not window.confirm): they match the console's
// look, can hold a form, and a test drives them like any other part of the page.
import { h } from './dom.js'

export interface Field {
  name: string
  label: string
  value?: string
  placeholder?: string
  /** A select instead of a text input: [value, label] pairs. */
  options?: Array<[value: string, label: string]>
  /** A sentence under the field. */
  help?: string
  pattern?: string
  /** May be left empty (every field is required otherwise). */
  optional?: boolean
}

export interface DialogSpec {
  title: string
  /** What will happen, in a sentence or two. */
  body?: Node | string
  fields?: Field[]
  confirmLabel: string
  /** Red confirm button, for what cannot be undone. */
  danger?: boolean
}

/** Resolves with the field values on confirm, or null on cancel (Escape, Cancel, backdrop). */
export function openDialog(spec: DialogSpec): Promise<Record<string, string> | null> {
  return new Promise((resolve) => {
    const inputs = new Map<string, HTMLInputElement | HTMLSelectElement>()
    const fields = (spec.fields ?? []).map((field) => {
      const id = `dialog-field-${field.name}`
      const input = field.options === undefined
        ? h('input', { id, name: field.name, value: field.value ?? '', placeholder: field.placeholder ?? null, pattern: field.pattern ?? null, title: field.pattern === undefined ? null : field.help ?? null, required: field.optional !== true, autocomplete: 'off', spellcheck: 'false' })
        : h('select', { id, name: field.name }, field.options.map(([value, label]) => h('option', { value, selected: value === field.value }, label)))
      inputs.set(field.name, input)
      const error = h('p.field-error', { dataset: { fieldError: field.name } })
      if (field.pattern !== undefined && input instanceof HTMLInputElement) {
        // The browser's own words ("Please match the requested format") say nothing: say what is allowed.
        const explain = () => {
          input.setCustomValidity('')
          const wrong = input.value !== '' && input.validity.patternMismatch
          const message = field.help === undefined ? `Type exactly ${field.pattern}` : `Not allowed here. ${field.help}`
          input.setCustomValidity(wrong ? message : '')
          error.textContent = wrong ? message : ''
        }
        input.addEventListener('input', explain)
        input.addEventListener('invalid', explain)
      }
      return h('div.field', null, h('label', { for: id }, field.label), input, error, field.help === undefined ? null : h('p.help', null, field.help))
    })
    const form = h('form', { method: 'dialog' },
      h('h2', null, spec.title),
      spec.body === undefined ? null : h('div.dialog-body', null, spec.body),
      fields,
      h('div.dialog-actions', null,
        h('button.button', { type: 'button', value: 'cancel', onclick: () => finish(null) }, 'Cancel'),
        h(spec.danger === true ? 'button.button.danger' : 'button.button.primary', { type: 'submit', value: 'confirm' }, spec.confirmLabel),
      ),
    )
    const dialog = h('dialog.modal', { 'aria-label': spec.title }, form)
    let done = false
    const finish = (values: Record<string, string> | null) => {
      if (done) return
      done = true
      dialog.close()
      dialog.remove()
      resolve(values)
    }
    form.addEventListener('submit', (event) => {
      event.preventDefault()
      finish(Object.fromEntries([...inputs].map(([name, input]) => [name, input.value.trim()])))
    })
    dialog.addEventListener('cancel', (event) => { event.preventDefault(); finish(null) })
    dialog.addEventListener('click', (event) => { if (event.target === dialog) finish(null) })
    document.body.append(dialog)
    dialog.showModal()
    ;(inputs.values().next().value ?? form.querySelector<HTMLButtonElement>('button[type=submit]'))?.focus()
  })
}

export async function confirmAction(spec: Omit<DialogSpec, 'fields'>): Promise<boolean> {
  return (await openDialog(spec)) !== null
}
