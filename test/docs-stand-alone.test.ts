// The repository stands alone: no tracked file points at a document that is not in it
// (the product and API documents it was started from, their numbered sections, issue
// numbers, paths beside the clone), and every citation of a docs/ section
// (`docs/api.md, "Change tail"`) or a markdown anchor names a heading that exists. The
// decisions code and tests rely on are written in docs/; this keeps it that way.
import { execFileSync } from 'node:child_process'
import { readdirSync, readFileSync } from 'node:fs'
import { join, relative } from 'node:path'
import t from 'tap'
import { anchorLinks, headings, outsideReferences, sectionCitations, type Finding, type Headings } from './helpers/doc-citations.js'

const root = join(import.meta.dirname, '..')
const self = ['test/docs-stand-alone.test.ts', 'test/helpers/doc-citations.ts']

/** Tracked files (the working tree when this is not a git checkout), text only. */
function trackedFiles(): string[] {
  let files: string[]
  try {
    files = execFileSync('git', ['ls-files', '-z'], { cwd: root, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).split('\0').filter((f) => f !== '')
  } catch {
    files = walk(root)
  }
  return files.filter((f) => !self.includes(f) && f !== 'package-lock.json')
}

function walk(dir: string): string[] {
  const skip = new Set(['.git', 'node_modules', 'dist', 'target', '.tap'])
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    if (skip.has(entry.name)) return []
    const path = join(dir, entry.name)
    return entry.isDirectory() ? walk(path) : [relative(root, path)]
  })
}

function readText(file: string): string | null {
  let bytes: Buffer
  try {
    bytes = readFileSync(join(root, file))
  } catch {
    return null // listed by git but deleted in the working tree
  }
  return bytes.includes(0) ? null : bytes.toString('utf8')
}

const files = trackedFiles()
const texts = new Map<string, string>()
for (const file of files) {
  const text = readText(file)
  if (text !== null) texts.set(file, text)
}
const docs = new Set(files.filter((f) => /^docs\/[\w-]+\.md$/.test(f)))
const headingsOf = new Map<string, Headings>()
for (const file of files.filter((f) => f.endsWith('.md'))) headingsOf.set(file, headings(texts.get(file) ?? ''))

/** Where `docs/X.md, "Section"` citations are checked: code, tests, scripts and the docs. */
const citing = /^(src|test|crates|native|scripts|bench|console|bin|examples|docs|\.ci)\/|^README\.md$/

function lines(findings: Finding[]): string[] {
  return findings.map((f) => `${f.file}:${f.line}: ${f.text}`)
}

/** Citations of docs/ sections and anchors that do not exist, over `sources`. */
function brokenCitations(sources: Map<string, string>): Finding[] {
  const broken: Finding[] = []
  for (const [file, text] of sources) {
    if (citing.test(file)) {
      for (const c of sectionCitations(file, text, docs)) {
        const known = headingsOf.get(c.doc)
        if (known === undefined) broken.push({ file, line: c.line, text: `${c.doc} is not in the repository` })
        else for (const s of c.sections) if (!known.names.has(s)) broken.push({ file, line: c.line, text: `${c.doc} has no heading "${s}"` })
      }
    }
    if (file.endsWith('.md')) {
      for (const l of anchorLinks(file, text)) {
        const known = headingsOf.get(l.doc)
        if (known === undefined) broken.push({ file, line: l.line, text: `link to ${l.doc}, which is not in the repository` })
        else if (!known.anchors.has(l.anchor)) broken.push({ file, line: l.line, text: `${l.doc} has no anchor #${l.anchor}` })
      }
    }
  }
  return broken
}

t.test('no tracked file points at a document outside the repository', async (t) => {
  t.ok(texts.size > 500, `${texts.size} text files read`)
  const found = [...texts].flatMap(([file, text]) => outsideReferences(file, text))
  t.same(lines(found), [], 'none (move what each relies on into docs/ and cite it there)')
})

t.test('every docs/ section and anchor that is cited exists', async (t) => {
  const cited = [...texts].filter(([file]) => citing.test(file)).flatMap(([file, text]) => sectionCitations(file, text, docs))
  t.ok(cited.length >= 100, `${cited.length} section citations checked`)
  const links = [...texts].filter(([file]) => file.endsWith('.md')).flatMap(([file, text]) => anchorLinks(file, text))
  t.ok(links.length >= 10, `${links.length} markdown anchors checked`)
  const broken = brokenCitations(texts)
  t.same(lines(broken), [], 'none (cite a heading that exists)')
})

t.test('the checks find what they look for', async (t) => {
  // Negative controls: each of these must be found, or the two tests above prove nothing.
  const outsideSamples = [
    '// The one catalogue of error codes (product.md 4).',
    '// Never migrates (seed 4.2 rule 2).',
    '// Authentication (seed 5, product.md 3).',
    '/** Seed section 1, word for word. */',
    // Joined at run time, so this file itself names no path outside the repository.
    ['const design = new URL(\'../..', ['sha', 'red'].join(''), 'design/language.md\', import.meta.url)'].join('/'),
    '// as the API document 4.3 says',
    '// (language.md 3) null is smallest',
    '// see issue 12',
    '/// Everything the brief asks of it.',
  ]
  for (const sample of outsideSamples) t.equal(outsideReferences('x.ts', sample).length > 0, true, sample)
  const innocent = ['const seed = 0x5eed', '// with seed 0 and seed = the prime', '// failures name the seed (seeds 1, 2, …)', '// a product that is itself rounded', '// for the brief moment the lock is held']
  for (const sample of innocent) t.same(outsideReferences('x.ts', sample), [], `not a reference: ${sample}`)

  const parsed = headings('# Top\n```` ```eel ```` blocks run.\n## After inline code\n```\n# not a heading\n```\n## Twice\n## Twice\n### With `code` (and a path)')
  t.same([...parsed.anchors], ['top', 'after-inline-code', 'twice', 'twice-1', 'with-code-and-a-path'], 'headings outside code fences, with GitHub\'s anchors')
  t.ok(parsed.names.has('With `code`') && !parsed.names.has('not a heading'), 'a name without its "(…)"; nothing from inside a fence')

  const broken = brokenCitations(new Map([
    ['src/x.ts', '// The tail (docs/api.md, "Change tail"), and (docs/api.md, "No such section").\n// Also docs/operations.md,\n// "Nor this one", and docs/api.md "Origins and\n// elsewhere".'],
    ['test/y.test.ts', '// (docs/sharding.md, "Leases")'],
    ['docs/z.md', 'See [the tail](api.md#change-tail) and [nothing](api.md#no-such-anchor).'],
  ]))
  t.same(lines(broken), [
    'src/x.ts:1: docs/api.md has no heading "No such section"',
    'src/x.ts:2: docs/operations.md has no heading "Nor this one"',
    'src/x.ts:3: docs/api.md has no heading "Origins and elsewhere"',
    'test/y.test.ts:1: docs/sharding.md is not in the repository',
    'docs/z.md:1: docs/api.md has no anchor #no-such-anchor',
  ])
})
