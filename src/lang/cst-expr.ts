// Expressions: lezer nodes to `Expr`, with literals decoded and checked.
import type { BinaryOp, Expr, RecordField } from './ast.js'
import { child, children, span, type Cst } from './cst-node.js'
import type { SyntaxNode } from './parse-tree.js'
import { eel_expression_depth_max, eel_nesting_depth_max, in_list_literals_max } from '../limits.js'

export const expressionNodes: ReadonlySet<string> = new Set([
  'Number', 'Duration', 'String', 'Boolean', 'Null', 'Param', 'List', 'Record', 'Field', 'Call',
  'ParenthesizedExpression', 'UnaryExpression', 'BinaryExpression',
])

const comparisons: ReadonlySet<string> = new Set(['==', '!=', '<', '<=', '>', '>=', 'in'])

/** Nodes that nest what they hold one level deeper (a folded `-3` is a literal, not a level). */
const nestingNodes: ReadonlySet<string> = new Set(['List', 'Record', 'Call', 'ParenthesizedExpression', 'UnaryExpression'])

/**
 * Deeper expressions are refused (src/limits.ts): building, checking and evaluating
 * them recurses, and no real query comes near either limit. The same nesting over the
 * parser's own limit is found by parse-limits.ts, with the same message.
 */
export function buildExpr(cx: Cst, node: SyntaxNode): Expr {
  const nests = nestingNodes.has(node.name) && !foldsToLiteral(node)
  if (nests && cx.nesting >= eel_nesting_depth_max) return tooDeep(cx, node, nestingTooDeep())
  if (cx.depth >= eel_expression_depth_max) {
    return tooDeep(cx, node, {
      message: `expression too deep (more than ${eel_expression_depth_max} levels of operators and nesting)`,
      hint: 'split long chains; x in [a, b, …] replaces long or chains',
    })
  }
  cx.depth += 1
  if (nests) cx.nesting += 1
  try {
    return buildNode(cx, node)
  } finally {
    cx.depth -= 1
    if (nests) cx.nesting -= 1
  }
}

/** The diagnostic of nesting beyond eel_nesting_depth_max, wherever it is found. */
export function nestingTooDeep(): { message: string; hint: string } {
  return {
    message: `nested too deep (more than ${eel_nesting_depth_max} levels of brackets, calls and prefix operators)`,
    hint: 'flatten it',
  }
}

function tooDeep(cx: Cst, node: SyntaxNode, what: { message: string; hint: string }): Expr {
  // The opening token (a bracket, an operator, a function name) is where the level begins.
  const first = node.firstChild
  if (!cx.tooDeep) cx.report({ from: node.from, to: first === null ? node.to : first.to }, what.message, { hint: what.hint })
  cx.tooDeep = true
  return { kind: 'literal', value: null, integer: false, span: span(node) }
}

/** `-3`: a unary minus of a number is built as the literal -3. */
function foldsToLiteral(node: SyntaxNode): boolean {
  if (node.name !== 'UnaryExpression') return false
  const [op, operand] = children(node)
  return op?.name === 'ArithOp' && operand?.name === 'Number'
}

function buildNode(cx: Cst, node: SyntaxNode): Expr {
  const at = span(node)
  switch (node.name) {
    case 'Number':
      return numberLiteral(cx, node, 1)
    case 'Duration':
      return durationLiteral(cx, node)
    case 'String':
      return { kind: 'literal', value: decodeString(cx, node), integer: false, span: at }
    case 'Boolean':
      return { kind: 'literal', value: cx.source(node) === 'true', integer: false, span: at }
    case 'Null':
      return { kind: 'literal', value: null, integer: false, span: at }
    case 'Param':
      return { kind: 'param', name: cx.source(node).slice(1), span: at }
    case 'List':
      return { kind: 'list', items: expressions(cx, node), span: at }
    case 'Record':
      return { kind: 'record', fields: recordFields(cx, node), span: at }
    case 'Field':
      return { kind: 'field', path: children(node, 'FieldName').map((n) => cx.name(n)), span: at }
    case 'Call': {
      const name = child(node, 'FunctionName')
      return { kind: 'call', name: cx.name(name), nameSpan: span(name), args: expressions(cx, child(node, 'ArgList')), span: at }
    }
    case 'ParenthesizedExpression':
      return buildExpr(cx, child(node, expressionNodes))
    case 'UnaryExpression':
      return unary(cx, node)
    case 'BinaryExpression':
      return binary(cx, node)
    default:
      throw new Error(`eel: ${node.name} is not an expression`)
  }
}

/** The expression children of a node, in order. */
export function expressions(cx: Cst, node: SyntaxNode): Expr[] {
  return children(node, expressionNodes).map((n) => buildExpr(cx, n))
}

/** `{name: expr, "quoted name": expr}` fields of a Record node. */
export function recordFields(cx: Cst, node: SyntaxNode): RecordField[] {
  return children(node, 'RecordField').map((field) => {
    // The key comes first; a string key is itself an expression node.
    const [key, value] = children(field, new Set([...expressionNodes, 'Label']))
    if (key === undefined || value === undefined) throw new Error('eel: malformed RecordField')
    const name = key.name === 'String' ? decodeString(cx, key) : cx.name(key)
    return { name, nameSpan: span(key), value: buildExpr(cx, value) }
  })
}

function unary(cx: Cst, node: SyntaxNode): Expr {
  const [op, operand] = children(node)
  if (op === undefined || operand === undefined) throw new Error('eel: malformed UnaryExpression')
  // `-3` is the literal -3, so defaults and `take -1` need no arithmetic.
  if (op.name === 'ArithOp' && operand.name === 'Number') return numberLiteral(cx, operand, -1, span(node))
  const operandExpr = buildExpr(cx, operand)
  return { kind: 'unary', op: op.name === 'ArithOp' ? '-' : 'not', operand: operandExpr, span: span(node) }
}

function binary(cx: Cst, node: SyntaxNode): Expr {
  const [left, opNode, right] = children(node)
  if (left === undefined || opNode === undefined || right === undefined) throw new Error('eel: malformed BinaryExpression')
  const op = (opNode.name === 'ArithOp' || opNode.name === 'CompareOp' ? cx.source(opNode) : opNode.name) as BinaryOp
  if (comparisons.has(op) && left.name === 'BinaryExpression') {
    const inner = children(left)[1]
    const innerOp = inner === undefined ? '' : inner.name === 'CompareOp' ? cx.source(inner) : inner.name
    if (comparisons.has(innerOp)) {
      cx.report(span(opNode), `comparisons do not chain: '${innerOp}' then '${op}'`, {
        found: `'${op}'`,
        hint: 'combine them with and, as in a < b and b < c',
      })
    }
  }
  if (op === 'in' && right.name === 'List') {
    // Counted before the items are built: a list past the limit costs no more work.
    const count = children(right, expressionNodes).length
    if (count > in_list_literals_max) {
      cx.report(span(right), `list of ${count} values after in is longer than the limit of ${in_list_literals_max}`, {
        hint: 'pass a longer list as a parameter: where id in $ids',
      })
      return { kind: 'literal', value: false, integer: false, span: span(node) }
    }
  }
  return { kind: 'binary', op, left: buildExpr(cx, left), right: buildExpr(cx, right), span: span(node) }
}

function numberLiteral(cx: Cst, node: SyntaxNode, sign: 1 | -1, at = span(node)): Expr {
  const text = cx.source(node)
  const integer = /^\d+$/.test(text)
  const magnitude = Number(text)
  if (integer && !Number.isSafeInteger(magnitude)) {
    cx.report(span(node), `integer ${text} is out of range`, { found: `'${text}'`, hint: 'an int lies between -(2^53 - 1) and 2^53 - 1; write 1e20 for a float' })
  } else if (!Number.isFinite(magnitude)) {
    cx.report(span(node), `number ${text} is out of range`, { found: `'${text}'` })
  }
  return { kind: 'literal', value: sign === 1 ? magnitude : 0 - magnitude, integer, span: at }
}

const unit_ms: Readonly<Record<string, number>> = { w: 604_800_000, d: 86_400_000, h: 3_600_000, m: 60_000, s: 1000, ms: 1 }

/** `1h30m` in milliseconds; a total beyond a safe integer is refused. */
function durationLiteral(cx: Cst, node: SyntaxNode): Expr {
  const text = cx.source(node)
  let ms = 0
  for (const [, digits, unit] of text.matchAll(/(\d+)(ms|w|d|h|m|s)/g)) ms += Number(digits) * (unit_ms[unit as string] as number)
  if (!Number.isSafeInteger(ms)) {
    cx.report(span(node), `duration ${text} is out of range`, { found: `'${text}'`, hint: 'a duration holds at most 2^53 - 1 milliseconds' })
  }
  return { kind: 'duration', ms, span: span(node) }
}

const simpleEscapes: Record<string, string> = { '"': '"', '\\': '\\', n: '\n', t: '\t' }

/** The value of a String node; the grammar lets any escape through, this checks them. */
export function decodeString(cx: Cst, node: SyntaxNode): string {
  const raw = cx.source(node)
  let out = ''
  for (let i = 1; i < raw.length - 1; i += 1) {
    const ch = raw[i] ?? ''
    if (ch !== '\\') {
      out += ch
      continue
    }
    const next = raw[i + 1] ?? ''
    const simple = simpleEscapes[next]
    if (simple !== undefined) {
      out += simple
      i += 1
      continue
    }
    const unicode = next === 'u' ? /^\\u\{([0-9a-fA-F]{1,6})\}/.exec(raw.slice(i)) : null
    const code = unicode === null ? NaN : parseInt(unicode[1] ?? '', 16)
    if (unicode !== null && code <= 0x10ffff) {
      out += String.fromCodePoint(code)
      i += unicode[0].length - 1
      continue
    }
    const bad = unicode?.[0] ?? raw.slice(i, i + 2)
    const from = node.from + i
    cx.report({ from, to: from + bad.length }, `unknown escape '${bad}' in string`, {
      found: `'${bad}'`,
      hint: next === 'u' ? 'write a code point as \\u{1F600} (1 to 6 hex digits, at most 10FFFF)' : 'the escapes are \\" \\\\ \\n \\t and \\u{…}',
    })
    i += 1
  }
  return out
}
