// What test/docs-stand-alone.test.ts looks for: references to documents the repository
// does not hold (the product and API documents it was started from, numbered sections
// of them, issue numbers), and citations of docs/ sections or anchors that do not exist.
// Citations have the form `docs/api.md, "Change tail"` (a file, then one or more quoted
// headings, which may continue on the next comment line) or a markdown link
// `[…](api.md#change-tail)`.
import { posix } from 'node:path'

export interface Finding {
  file: string
  line: number
  text: string
}

/** Ways of pointing outside the repository, each with why it is refused. */
const outside: Array<[RegExp, string]> = [
  [/product\.md/g, 'the product document is not in the repository'],
  [/seed-api/g, 'the API document is not in the repository'],
  [/\.\.\/shared\b|\/work\/shared|shared\/design/g, 'a path outside the repository'],
  [/\breliability\.md\b/g, 'the reliability document is not in the repository'],
  [/\bseed\s*(?:§|section\b)/gi, 'a section of the API document'],
  [/\bseed \d+\.\d+/gi, 'a numbered section of the API document'],
  [/\(seed \d+[,;)]/gi, 'a numbered section of the API document'],
  [/\bseed \d+ rule/gi, 'a rule of the API document'],
  [/\b(?:API document|contract)\s*§?\s*\d/gi, 'a numbered section of the API document'],
  [/\bseed(?:'s)? (?:API|document|contract|figures)\b/gi, 'the API document'],
  [/\b(?:routes?|sections?) of the seed\b/gi, 'the API document'],
  [/(?<![\w/.-])(?:language|architecture|performance|operations|format|api)\.md §?\d/g, 'a numbered section of a design document (docs/ has named sections)'],
  [/\bissue #?\d+\b/gi, 'an issue of the tracker, which is not in the repository'],
  [/\bthe brief\b(?! (?:moment|pause|window|while)\b)/gi, 'the brief the work came from is not in the repository'],
]

/** Every place in `text` that points outside the repository. */
export function outsideReferences(file: string, text: string): Finding[] {
  const found: Finding[] = []
  for (const [pattern, why] of outside) {
    for (const m of text.matchAll(pattern)) found.push({ file, line: lineOf(text, m.index), text: `${lineText(text, m.index)}  <- ${why}` })
  }
  return found.sort((a, b) => a.line - b.line)
}

/**
 * A markdown document's headings: their names (also without a trailing "(…)", and
 * before a ": ") and anchors.
 */
export interface Headings {
  names: Set<string>
  anchors: Set<string>
}

export function headings(markdown: string): Headings {
  const names = new Set<string>()
  const anchors = new Set<string>()
  const seen = new Map<string, number>()
  let fence: string | null = null // the open code fence, while inside one
  for (const line of markdown.split('\n')) {
    if (fence === null) {
      // An opening fence: three or more backticks with no backtick after them (so a
      // line that starts with inline code, ```` ```eel ````, is not one), or tildes.
      const open = /^ {0,3}(`{3,}(?=[^`]*$)|~{3,})/.exec(line)
      if (open !== null) {
        fence = open[1] as string
        continue
      }
    } else {
      const close = /^ {0,3}(`{3,}|~{3,})\s*$/.exec(line)
      if (close !== null && close[1]?.[0] === fence[0] && (close[1] as string).length >= fence.length) fence = null
      continue
    }
    const m = /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line)
    if (m === null) continue
    const name = m[1] as string
    names.add(name)
    names.add(name.replace(/\s*\([^)]*\)\s*$/, ''))
    names.add(name.replace(/: .*$/, ''))
    const slug = githubSlug(name)
    const n = seen.get(slug) ?? 0
    seen.set(slug, n + 1)
    anchors.add(n === 0 ? slug : `${slug}-${n}`)
  }
  return { names, anchors }
}

/** The anchor GitHub gives a heading: lower case, punctuation dropped, spaces as '-'. */
export function githubSlug(heading: string): string {
  return heading.toLowerCase().trim().replace(/[^\p{L}\p{N}\p{M} _-]/gu, '').replace(/ /g, '-')
}

export interface Citation {
  file: string
  line: number
  /** The cited document, relative to the repository root (`docs/api.md`). */
  doc: string
  sections: string[]
}

// Between a document's name and its sections, between sections and inside a section's
// name: spaces, and line breaks followed by a comment marker (`//`, `///`, `//!`, ` * `,
// `#`).
const gap = String.raw`(?:\s+(?:\/\/[\/!]?|\*(?!\/)|#(?!#))?)*\s*`
const lineBreak = String.raw`\n\s*(?:\/\/[\/!]?|\*(?!\/)|#(?!#))?\s*`
const quoted = String.raw`"(?:[^"\n]|${lineBreak})+"`
const citation = new RegExp(
  String.raw`(?<![\w/.-])(docs\/)?([\w-]+)\.md` + '`?' + String.raw`(?:,|\s)` + gap + String.raw`\(?` + `(${quoted}(?:,${gap}${quoted})*)`,
  'g',
)

/**
 * Every `docs/X.md, "Section"` citation in `text`. A bare `X.md, "Section"` counts only
 * where X.md is one of `docs` (the docs cite each other so).
 */
export function sectionCitations(file: string, text: string, docs: ReadonlySet<string>): Citation[] {
  const found: Citation[] = []
  for (const m of text.matchAll(citation)) {
    const doc = `docs/${m[2] as string}.md`
    if (m[1] === undefined && !docs.has(doc)) continue
    const sections = [...(m[3] as string).matchAll(new RegExp(quoted, 'g'))].map((q) => q[0].slice(1, -1).replace(new RegExp(lineBreak, 'g'), ' '))
    found.push({ file, line: lineOf(text, m.index), doc, sections })
  }
  return found
}

export interface AnchorLink {
  file: string
  line: number
  /** The linked markdown file, relative to the repository root. */
  doc: string
  anchor: string
}

/** Every markdown link with an anchor into a markdown file (`[…](x.md#a)`, `[…](#a)`). */
export function anchorLinks(file: string, text: string): AnchorLink[] {
  const found: AnchorLink[] = []
  for (const m of text.matchAll(/\]\(([^()\s#]*)#([^()\s]+)\)/g)) {
    const target = m[1] as string
    if (target !== '' && !target.endsWith('.md')) continue
    const doc = target === '' ? file : posix.normalize(posix.join(posix.dirname(file), target))
    found.push({ file, line: lineOf(text, m.index), doc, anchor: m[2] as string })
  }
  return found
}

function lineOf(text: string, index: number): number {
  let line = 1
  for (let i = text.indexOf('\n'); i !== -1 && i < index; i = text.indexOf('\n', i + 1)) line += 1
  return line
}

function lineText(text: string, index: number): string {
  const start = text.lastIndexOf('\n', index - 1) + 1
  const end = text.indexOf('\n', index)
  return text.slice(start, end === -1 ? undefined : end).trim()
}
