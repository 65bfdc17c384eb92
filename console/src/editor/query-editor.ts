// The query editor: Eel highlighting and diagnostics, completion from the loaded schema,
// undo history, bracket matching, and Ctrl-Enter (Cmd-Enter) to run.
import { autocompletion, closeBrackets, completionKeymap } from '@codemirror/autocomplete'
import { defaultKeymap, history, historyKeymap, indentWithTab } from '@codemirror/commands'
import { indentOnInput } from '@codemirror/language'
import { lintGutter } from '@codemirror/lint'
import { EditorState } from '@codemirror/state'
import { drawSelection, EditorView, highlightActiveLine, highlightActiveLineGutter, keymap, lineNumbers, placeholder } from '@codemirror/view'
import type { ErrorBody, SchemaIR } from '../api/types.js'
import { eelCompletions } from './eel-complete.js'
import { eel } from './eel-language.js'
import { eelLint, serverProblemEffect, type EelProblem } from './eel-lint.js'
import { eelTheme } from './eel-theme.js'

export interface QueryEditorOptions {
  parent: HTMLElement
  doc: string
  onRun: () => void
  onProblems: (problems: EelProblem[]) => void
  onChange: (doc: string) => void
  /** The tenant's loaded schema, for completion (null until known). */
  schema: () => SchemaIR | null
}

export class QueryEditor {
  readonly view: EditorView

  constructor(options: QueryEditorOptions) {
    this.view = new EditorView({
      parent: options.parent,
      state: EditorState.create({
        doc: options.doc,
        extensions: [
          // Before the default keymap, whose Mod-Enter would insert a line.
          keymap.of([{ key: 'Mod-Enter', run: () => { options.onRun(); return true }, preventDefault: true }]),
          lineNumbers(),
          highlightActiveLineGutter(),
          highlightActiveLine(),
          drawSelection(),
          history(),
          indentOnInput(),
          lintGutter(),
          closeBrackets(),
          autocompletion({ override: [eelCompletions(options.schema)], icons: false }),
          keymap.of([...completionKeymap, ...defaultKeymap, ...historyKeymap, indentWithTab]),
          placeholder('users | where age > $min | take 20'),
          eel(),
          eelTheme(),
          eelLint(options.onProblems),
          EditorView.updateListener.of((update) => { if (update.docChanged) options.onChange(update.state.doc.toString()) }),
          EditorView.contentAttributes.of({ 'aria-label': 'Eel query' }),
        ],
      }),
    })
  }

  get text(): string {
    return this.view.state.doc.toString()
  }

  /** Replaces the whole text (a history entry or a saved query chosen). */
  setText(text: string): void {
    this.view.dispatch({ changes: { from: 0, to: this.view.state.doc.length, insert: text } })
  }

  /** Shows the server's error inline, or clears the last one (null). */
  showServerError(body: ErrorBody | null): void {
    this.view.dispatch({ effects: serverProblemEffect(this.view.state.doc, body) })
  }

  focus(): void {
    this.view.focus()
  }

  destroy(): void {
    this.view.destroy()
  }
}
