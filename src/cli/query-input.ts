// When the shell's input is a whole statement (docs/operations.md, "The query shell"):
// not while a bracket ({ [ () is open, as in an atomic block or a record written over
// several lines, and not right after a `|` that another stage must follow. Brackets in
// strings, `backtick names` and # comments do not count. An Eel string ends at its line
// (it cannot hold a line break: write \n), so an unclosed one ends the statement and
// the parser reports it.

/** Whether `text` (the lines typed so far, joined by line breaks) is ready to run. */
export function statementComplete(text: string): boolean {
  let depth = 0
  let last = ''
  for (let i = 0; i < text.length; i += 1) {
    const ch = text[i] as string
    if (ch === '"' || ch === '`') {
      i = closingQuote(text, i, ch)
      last = ch
    } else if (ch === '#') {
      while (i + 1 < text.length && text[i + 1] !== '\n') i += 1
    } else if ('{[('.includes(ch)) {
      depth += 1
      last = ch
    } else if ('}])'.includes(ch)) {
      depth -= 1
      last = ch
    } else if (!/\s/.test(ch)) {
      last = ch
    }
  }
  return depth <= 0 && last !== '|'
}

/** The index of the quote closing the one at `open`, or of the end of its line. */
function closingQuote(text: string, open: number, quote: string): number {
  for (let i = open + 1; i < text.length; i += 1) {
    const ch = text[i]
    if (ch === '\n') return i - 1
    if (ch === '\\' && quote === '"' && text[i + 1] !== '\n') i += 1
    else if (ch === quote) return i
  }
  return text.length
}
