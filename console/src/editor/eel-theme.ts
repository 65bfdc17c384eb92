// The editor's colours, matched to the console's palette (styles/base.css). Muted
// hues: keywords and names must be told apart without the page shouting.
import { HighlightStyle, syntaxHighlighting } from '@codemirror/language'
import { EditorView } from '@codemirror/view'
import type { Extension } from '@codemirror/state'
import { tags as t } from '@lezer/highlight'

const eel_colours = HighlightStyle.define([
  { tag: t.keyword, color: '#c792ea' },
  { tag: t.operatorKeyword, color: '#c792ea' },
  { tag: t.controlOperator, color: '#89ddff', fontWeight: '600' },
  { tag: [t.number, t.bool, t.null], color: '#f7a76c' },
  { tag: t.string, color: '#a5d6a7' },
  { tag: t.lineComment, color: '#6b7685', fontStyle: 'italic' },
  { tag: t.special(t.variableName), color: '#ffcb6b' },
  { tag: t.typeName, color: '#82aaff', fontWeight: '600' },
  { tag: t.className, color: '#82aaff' },
  { tag: t.namespace, color: '#82aaff' },
  { tag: t.propertyName, color: '#d7dce2' },
  { tag: t.definition(t.propertyName), color: '#9fb4c8' },
  { tag: t.function(t.variableName), color: '#80cbc4' },
  { tag: [t.arithmeticOperator, t.compareOperator], color: '#89ddff' },
  { tag: [t.paren, t.squareBracket, t.brace, t.separator, t.punctuation], color: '#8b95a3' },
])

const editor_chrome = EditorView.theme({
  '&': { color: 'var(--text)', backgroundColor: 'var(--surface-sunken)', fontSize: '13px' },
  '&.cm-focused': { outline: 'none' },
  '.cm-content': { fontFamily: 'var(--mono)', caretColor: 'var(--accent)', padding: '8px 0' },
  '.cm-scroller': { fontFamily: 'var(--mono)', lineHeight: '1.6' },
  '.cm-gutters': { backgroundColor: 'var(--surface-sunken)', color: 'var(--muted-2)', border: 'none', borderRight: '1px solid var(--border)' },
  '.cm-activeLine': { backgroundColor: 'rgba(255,255,255,0.025)' },
  '.cm-activeLineGutter': { backgroundColor: 'transparent', color: 'var(--muted)' },
  '.cm-cursor': { borderLeftColor: 'var(--accent)' },
  '&.cm-focused .cm-selectionBackground, .cm-selectionBackground, ::selection': { backgroundColor: 'rgba(110,168,254,0.25) !important' },
  '.cm-matchingBracket': { backgroundColor: 'rgba(137,221,255,0.15)', outline: '1px solid rgba(137,221,255,0.4)' },
  '.cm-tooltip': { backgroundColor: 'var(--surface-2)', border: '1px solid var(--border)', color: 'var(--text)' },
  '.cm-diagnostic-error': { borderLeftColor: 'var(--danger)' },
  '.cm-lintRange-error': { backgroundImage: 'none', textDecoration: 'underline wavy var(--danger)', textUnderlineOffset: '3px' },
  '.cm-placeholder': { color: 'var(--muted-2)' },
  '.cm-tooltip.cm-tooltip-autocomplete': { borderRadius: '6px', overflow: 'hidden', boxShadow: '0 10px 30px rgba(0, 0, 0, 0.45)' },
  '.cm-tooltip.cm-tooltip-autocomplete > ul': { fontFamily: 'var(--mono)', fontSize: '12.5px', maxHeight: '16em' },
  '.cm-tooltip.cm-tooltip-autocomplete > ul > li': { padding: '3px 10px' },
  '.cm-tooltip-autocomplete ul li[aria-selected]': { backgroundColor: 'rgba(110, 168, 254, 0.22)', color: 'var(--text-strong)' },
  '.cm-completionDetail': { color: 'var(--muted)', fontStyle: 'normal', marginLeft: '12px' },
  '.cm-completionMatchedText': { textDecoration: 'none', color: 'var(--accent)' },
  '.cm-tooltip.cm-completionInfo': { padding: '6px 10px', fontSize: '12px', color: 'var(--muted)' },
}, { dark: true })

export function eelTheme(): Extension {
  return [editor_chrome, syntaxHighlighting(eel_colours)]
}
