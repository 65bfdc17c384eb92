// The data browser's row form: one input per field, generated from the field's type
// (numbers, text, true/false, ISO-8601 timestamps, JSON for lists and json), its
// default shown and left to the server when the field is left empty, optional fields
// settable to null, the primary key fixed when editing. The form stays open until the
// server accepts the change: a refusal (its code and sentence, the fields its body
// names marked: docs/api.md, "Errors") or a conflict (the row as it is now, beside what was typed) keeps every value
// typed, so nothing is lost.
import type { CollectionIR, FieldIR, Row, Value } from '../api/types.js'
import { h } from '../ui/dom.js'
import { badge } from '../ui/panel.js'
import { typeText } from '../ui/typed-value.js'

export type RowFormOutcome =
  | { ok: true }
  /** The server refused: `code`, its sentence, the status, and the fields the refusal is about (the error body's `fields`). */
  | { ok: false; code: string; message: string; status: number; fields: readonly string[] }
  /** The row changed (or was deleted: null) since the form was opened. */
  | { ok: false; conflict: Row | null }

export interface RowFormSpec {
  collection: CollectionIR
  /** The row being edited; absent for an insert. */
  row?: Row
  /** Sends the change: `values` are the fields changed in the form; `base` the row they apply to (as opened, or as it was when a conflict showed it). */
  submit(values: Row, base: Row | null): Promise<RowFormOutcome>
}

interface Input {
  field: FieldIR
  element: HTMLInputElement | HTMLSelectElement | HTMLTextAreaElement
  nullBox: HTMLInputElement | null
  error: HTMLElement
}

const scalar = (field: FieldIR) => ['int', 'float', 'string', 'bool', 'timestamp'].includes(field.type.kind)

/** How a stored value is shown in its input. */
function inputText(field: FieldIR, value: Value | undefined): string {
  if (value === undefined || value === null) return ''
  if (scalar(field)) return String(value)
  return JSON.stringify(value)
}

function defaultText(field: FieldIR): string | null {
  if (field.default === null) return null
  return field.default.kind === 'now' ? 'now()' : JSON.stringify(field.default.value)
}

/** The value an input holds, or a sentence saying why it is not one. */
function readInput(input: Input, inserting: boolean): { value: Value } | { omit: true } | { error: string } {
  const { field, element, nullBox } = input
  if (nullBox?.checked === true) return { value: null }
  const text = element.value.trim()
  // Empty: left to the server (its default, or null) on insert; unchanged on edit. Text
  // may be empty on purpose, unless an insert has a default or null to fall back on.
  if (text === '' && (field.type.kind !== 'string' || (inserting && (field.default !== null || field.optional)))) return { omit: true }
  switch (field.type.kind) {
    case 'int': case 'float': {
      const n = Number(text)
      if (!Number.isFinite(n)) return { error: `${text} is not a number` }
      if (field.type.kind === 'int' && !Number.isInteger(n)) return { error: `${text} is not a whole number (the field is int)` }
      return { value: n }
    }
    case 'bool': return { value: text === 'true' }
    case 'string': case 'timestamp': return { value: element.value }
    default:
      try {
        return { value: JSON.parse(text) as Value }
      } catch (error) {
        return { error: `not valid JSON: ${(error as Error).message}` }
      }
  }
}

function fieldInput(field: FieldIR, collection: CollectionIR, row: Row | undefined): Input {
  const id = `row-field-${field.name}`
  const primary = field.name === collection.primary
  const editing = row !== undefined
  const current = row?.[field.name]
  const fallback = defaultText(field)
  const placeholder = primary && collection.primary_auto && !editing ? 'assigned automatically'
    : fallback !== null ? `default: ${fallback}`
    : field.type.kind === 'timestamp' ? '2024-05-01T12:00:00Z'
    : field.optional ? 'empty: null' : ''
  let element: Input['element']
  if (field.type.kind === 'bool') {
    element = h('select', { id, name: field.name },
      !editing ? h('option', { value: '' }, fallback === null ? '(choose)' : `(default: ${fallback})`) : null,
      h('option', { value: 'true', selected: current === true }, 'true'),
      h('option', { value: 'false', selected: current === false }, 'false'))
  } else if (scalar(field)) {
    element = h('input', { id, name: field.name, value: inputText(field, current), placeholder, autocomplete: 'off', spellcheck: 'false', inputmode: field.type.kind === 'int' || field.type.kind === 'float' ? 'decimal' : null })
  } else {
    element = h('textarea', { id, name: field.name, rows: 3, placeholder: placeholder === '' ? 'JSON' : placeholder, spellcheck: 'false' })
    element.value = inputText(field, current)
  }
  if (primary && (editing || collection.primary_auto)) element.disabled = true
  const nullBox = field.optional && !primary ? h('input', { type: 'checkbox', id: `${id}-null`, checked: editing && current === null }) : null
  const error = h('p.field-error', { dataset: { fieldError: field.name } })
  return { field, element, nullBox, error }
}

/** Opens the form; resolves true once the server accepted the change, false on cancel. */
export function openRowForm(spec: RowFormSpec): Promise<boolean> {
  const { collection, row } = spec
  let base: Row | null = row ?? null
  const inputs = collection.fields.map((f) => fieldInput(f, collection, row))
  const banner = h('div.form-banner', { 'aria-live': 'polite' })
  const save = h('button.button.primary', { type: 'submit' }, row === undefined ? 'Insert' : 'Save')
  const form = h('form.row-form', { method: 'dialog' },
    h('h2', null, row === undefined ? `Insert into ${collection.name}` : `Edit ${collection.name} ${JSON.stringify(row[collection.primary] ?? null)}`),
    h('p.dialog-body', null, row === undefined
      ? 'Fields left empty take their default (or null when optional). One insert, checked by the server.'
      : 'Only the fields you change are written, and only if nobody changed the row since it was read: one update, checked by the server.'),
    banner,
    h('div.row-fields', null, inputs.map((input) => h('div.field', { dataset: { field: input.field.name } },
      h('label', { for: input.element.id },
        input.field.name, ' ', h('span.muted', null, `${typeText(input.field.type)}${input.field.optional ? '?' : ''}`),
        input.field.name === collection.primary ? badge('primary', 'accent') : null),
      h('div.field-row', null, input.element, input.nullBox === null ? null : h('label.null-box', { for: input.nullBox.id }, input.nullBox, 'null')),
      input.error,
    ))),
    h('div.dialog-actions', null, h('button.button', { type: 'button', value: 'cancel', onclick: () => finish(false) }, 'Cancel'), save),
  )
  const dialog = h('dialog.modal.wide-modal', { 'aria-label': form.querySelector('h2')?.textContent ?? 'Row' }, form)
  let resolve: (done: boolean) => void = () => undefined
  const done = new Promise<boolean>((r) => { resolve = r })
  const finish = (accepted: boolean) => {
    dialog.close()
    dialog.remove()
    resolve(accepted)
  }

  form.addEventListener('submit', (event) => {
    event.preventDefault()
    void submit()
  })
  dialog.addEventListener('cancel', (event) => { event.preventDefault(); finish(false) })

  async function submit(): Promise<void> {
    banner.replaceChildren()
    const values: Row = {}
    let invalid = false
    for (const input of inputs) {
      input.error.textContent = ''
      if (input.element.disabled) continue
      const read = readInput(input, row === undefined)
      if ('error' in read) {
        input.error.textContent = read.error
        invalid = true
      } else if ('value' in read) {
        // An edit writes only what was changed in the form: what differs from the row
        // as it was opened (after a conflict too, so another client's change to a field
        // left alone here is kept).
        if (row !== undefined && JSON.stringify(row[input.field.name] ?? null) === JSON.stringify(read.value)) continue
        values[input.field.name] = read.value
      }
    }
    if (invalid) return
    if (row !== undefined && Object.keys(values).length === 0) {
      banner.replaceChildren(h('div.callout.info', null, 'Nothing changed.'))
      return
    }
    save.disabled = true
    const outcome = await spec.submit(values, base).finally(() => { save.disabled = false })
    if (outcome.ok) { finish(true); return }
    if ('conflict' in outcome) {
      const current = outcome.conflict
      banner.replaceChildren(h('div.callout.warn.conflict', { role: 'alert' },
        h('div.callout-title', null, badge('conflict', 'warn'), current === null ? 'The row was deleted by someone else.' : 'The row changed since you opened it.'),
        h('p', null, current === null ? 'Nothing was written. Your values are still below.' : 'Nothing was written. Your values are still below. Changed meanwhile:'),
        current === null ? null : h('ul.conflict-row', null, collection.fields
          .filter((f) => JSON.stringify((base ?? {})[f.name] ?? null) !== JSON.stringify(current[f.name] ?? null))
          .map((f) => h('li', { dataset: { field: f.name } }, h('code', null, f.name), ': ', h('span.before', null, JSON.stringify((base ?? {})[f.name] ?? null)), ' → ', h('span.after', null, JSON.stringify(current[f.name] ?? null))))),
        current === null ? null : h('button.button.small', { type: 'button', onclick: () => {
          base = current
          banner.replaceChildren(h('div.callout.info', null, 'Your changes now apply to the row as it is now. Save again to write them.'))
        } }, 'Apply my changes to the current row'),
      ))
      return
    }
    for (const input of inputs) if (outcome.fields.includes(input.field.name)) input.error.textContent = outcome.message
    banner.replaceChildren(h('div.callout.danger.server-error', { role: 'alert' },
      h('div.callout-title', null, badge(outcome.code, 'danger'), h('span.muted', null, `HTTP ${outcome.status}`)),
      h('p', null, outcome.message)))
  }

  document.body.append(dialog)
  dialog.showModal()
  ;(inputs.find((i) => !i.element.disabled)?.element ?? save).focus()
  return done
}
