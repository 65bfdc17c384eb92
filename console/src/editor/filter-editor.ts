// The data browser's filter: one line of Eel, the expression a `where` takes, checked
// while typing with the language's own expression check, completed with the
// collection's fields and the functions; Enter applies it. After a run, the server's
// diagnostic (a type error, an unknown field) is shown at its place in the filter.
import { autocompletion, closeBrackets, completionKeymap } from '@codemirror/autocomplete'
import { defaultKeymap, history, historyKeymap } from '@codemirror/commands'
import { EditorState } from '@codemirror/state'
import { drawSelection, EditorView, keymap, placeholder } from '@codemirror/view'
import type { ErrorBody, SchemaIR } from '../api/types.js'
import { eelCompletions } from './eel-complete.js'
import { eelExpression } from './eel-language.js'
import { eelLint, serverProblemEffect, type EelProblem } from './eel-lint.js'
import { eelTheme } from './eel-theme.js'

export interface FilterEditorOptions {
  parent: HTMLElement
  doc: string
  onApply: () => void
  onProblems: (problems: EelProblem[]) => void
  schema: () => SchemaIR | null
  collection: () => string
}

export class FilterEditor {
  readonly view: EditorView
  #problems: EelProblem[] = []

  constructor(options: FilterEditorOptions) {
    this.view = new EditorView({
      parent: options.parent,
      state: EditorState.create({
        doc: options.doc,
        extensions: [
          // One line: Enter applies (unless the completion list is open and takes it).
          EditorState.transactionFilter.of((tr) => (tr.newDoc.lines > 1 ? [] : tr)),
          drawSelection(),
          history(),
          closeBrackets(),
          autocompletion({ override: [eelCompletions(options.schema, options.collection)], icons: false }),
          keymap.of([...completionKeymap, { key: 'Enter', run: () => { options.onApply(); return true } }, ...defaultKeymap, ...historyKeymap]),
          placeholder('a where expression, e.g. age > 30 and status == "active"'),
          eelExpression(),
          eelTheme(),
          eelLint((problems) => { this.#problems = problems; options.onProblems(problems) }, 'expression'),
          EditorView.contentAttributes.of({ 'aria-label': 'Filter (an Eel where expression)' }),
        ],
      }),
    })
  }

  get text(): string {
    return this.view.state.doc.toString()
  }

  /** The problems shown now (a filter with one is not sent). */
  get problems(): readonly EelProblem[] {
    return this.#problems
  }

  /** Shows the server's error in the filter; `column_offset` is where the filter began in the query sent. */
  showServerError(body: ErrorBody | null, column_offset: number): void {
    this.view.dispatch({ effects: serverProblemEffect(this.view.state.doc, body, column_offset) })
  }

  destroy(): void {
    this.view.destroy()
  }
}
