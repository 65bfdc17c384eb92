// The list of Eel problems under an editor (the query editor, the data browser's
// filter): each with its place, code, sentence, hint and where it came from.
import { describeProblem, type EelProblem } from '../editor/eel-lint.js'
import { h, replaceChildren } from './dom.js'
import { badge } from './panel.js'

/** Fills `list` with `problems`; `place` says where each is ("Line 2, column 5"). */
export function showProblems(list: HTMLElement, problems: readonly EelProblem[], place: (p: EelProblem) => string): void {
  replaceChildren(list, problems.map((p) => h('li.problem', { dataset: { line: String(p.line), column: String(p.column) } },
    h('span.problem-pos', null, place(p)),
    badge(p.code, 'danger'),
    h('span.problem-text', null, p.message),
    p.hint === undefined ? null : h('span.problem-hint', null, p.hint),
    h('span.problem-source', null, p.source === 'server' ? 'from the server' : 'while typing'),
  )))
  list.title = problems.map(describeProblem).join('\n')
}
