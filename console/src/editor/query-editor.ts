// The query editor: Eel highlighting and diagnostics, history, bracket matching, and
// Ctrl-Enter (Cmd-Enter) to run.
import { defaultKeymap, history, historyKeymap, indentWithTab } from '@codemirror/commands'
import { indentOnInput } from '@codemirror/language'
import { lintGutter } from '@codemirror/lint'
import { EditorState } from '@codemirror/state'
import { drawSelection, EditorView, highlightActiveLine, highlightActiveLineGutter, keymap, lineNumbers, placeholder } from '@codemirror/view'
import type { ErrorBody } from '../api/types.js'
import { eel } from './eel-language.js'
import { eelLint, serverProblemEffect, type EelProblem } from './eel-lint.js'
import { eelTheme } from './eel-theme.js'

export interface QueryEditorOptions {
  parent: HTMLElement
  doc: string
  onRun: () => void
  onProblems: (problems: EelProblem[]) => void
  onChange: (doc: string) => void
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
          keymap.of([...defaultKeymap, ...historyKeymap, indentWithTab]),
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
