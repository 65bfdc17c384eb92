// Syntax diagnostics, exactly as people read them: `line:column message (hint)`.
import t from 'tap'
import { formatDiagnostic } from '../src/lang/diagnostic.js'
import { diagnose, syntaxDiagnostics, type ParseMode } from '../src/lang/index.js'

/** [input, mode, the formatted first diagnostic] */
const cases: Array<[string, ParseMode, string]> = [
  // The example of docs/language.md.
  ['users | where age = 3', 'query', "1:19 unexpected '=' in where; expected '==' (use == to compare, : to name a field)"],
  ['insert users {id = 1}', 'query', "1:18 unexpected '=' in insert; expected ':' (use == to compare, : to name a field)"],
  ['users | update {n == 1}', 'query', "1:19 unexpected '==' in update; expected ':' (use : to name a field, == to compare)"],
  ['users | where a && b', 'query', "1:17 unexpected '&&' in where; expected 'and' (use and, or, not for logic)"],
  ['users | where a || b', 'query', "1:17 unexpected '||' in where; expected 'or' (use and, or, not for logic)"],
  ['users | where !a', 'query', "1:15 unexpected '!' in where; expected 'not' (use and, or, not for logic)"],
  ['users | where a <> b', 'query', "1:17 unexpected '<>' in where; expected '!=' (use != for not equal)"],
  ["users | where name == 'bob'", 'query', `1:23 unexpected single-quoted string 'bob' in where; expected an expression (use double quotes for strings: "bob")`],
  ['users | where a > 1 sort name', 'query', "1:21 unexpected 'sort' in where; expected '|' (separate stages with |)"],
  ['users where a > 1', 'query', "1:7 unexpected 'where'; expected '|' (separate stages with |)"],
  ['users | where name == "abc', 'query', '1:23 unterminated string in where (close it with " before the end of the line)'],
  ['users | select `count', 'query', '1:16 unterminated quoted name in select (close it with ` before the end of the line)'],
  ['users | select count, name', 'query', "1:16 unexpected keyword 'count' in select; expected an expression (write `count` to use a keyword as a name)"],
  ['insert index {id: 1}', 'query', "1:8 unexpected keyword 'index' in insert; expected a name (write `index` to use a keyword as a name)"],
  ['users | where', 'query', '1:14 unexpected end of input in where; expected an expression'],
  ['users |', 'query', '1:8 unexpected end of input; expected a stage'],
  ['users | wher a', 'query', "1:9 unexpected 'wher'; expected a stage (did you mean 'where'?)"],
  ['users | sort name descending', 'query', "1:19 unexpected 'descending' in sort; expected 'asc', 'desc', '|', ',', an operator or end of input (did you mean 'desc'?)"],
  ['orders | aggregate sum(amount)', 'query', "1:23 unexpected '(' in aggregate; expected ':' (name each aggregate, as in n: count())"],
  ['orders | aggregate count()', 'query', "1:20 unexpected keyword 'count' in aggregate; expected a name (name each aggregate, as in n: count())"],
  ['where a > 1', 'query', "1:1 unexpected 'where'; expected a statement (a pipeline starts with a collection, as in users | where …)"],
  ['users | where a not in [1]', 'query', "1:17 unexpected 'not' in where; expected '|', an operator or end of input (write not (x in [...]) to negate in)"],
  ['users | where a in (1, 2)', 'query', "1:22 unexpected ',' in where; expected ')' or an operator (lists are written in brackets: [1, 2])"],
  ['users | where (a > 1', 'query', "1:21 unexpected end of input in where; expected ')' or an operator"],
  ['users; orders', 'query', "1:8 unexpected 'orders'; expected end of input (one statement at a time; atomic { …; … } runs several writes together)"],
  ['', 'query', '1:1 unexpected end of input; expected a statement'],
  ['atomic { a | delete b | delete }', 'query', "1:21 unexpected 'b' in delete; expected 'returning', '|', ';' or '}'"],
  ['explain tenant create a', 'query', "1:9 unexpected 'tenant' in explain; expected a pipeline or a write"],
  ['tenant frok acme', 'query', "1:8 unexpected 'frok' in tenant; expected 'delete', 'create', 'suspend', 'resume', 'compact', 'fork', 'snapshot' or 'restore' (did you mean 'fork'?)"],
  ['tenant fork acme as', 'query', '1:20 unexpected end of input in tenant fork; expected a name'],
  ['call q(a 1)', 'query', "1:10 unexpected '1' in call q; expected ':'"],
  ['users | where naïve == 1', 'query', "1:17 unexpected 'ï' in where; expected '|', an operator or end of input (names use ASCII letters, digits and _; write other names in backticks)"],
  ['users | where a ~ b', 'query', "1:17 unexpected '~' in where; expected '|', an operator or end of input"],
  ['cllection users { id: int }', 'query', "1:11 unexpected 'users'; expected '|' or end of input ('cllection' reads as a collection name; did you mean 'collection'?)"],
  ['collection a {}\nqurey b { a }', 'schema', "2:9 unexpected '{'; expected '|', a statement or end of input ('qurey' reads as a collection name; did you mean 'query'?)"],
  ['tenat create acme', 'query', "1:7 unexpected 'create'; expected '|' or end of input ('tenat' reads as a collection name; did you mean 'tenant'?)"],
  ['collection a {}\ncollection b {}', 'query', "2:1 unexpected 'collection'; expected end of input (one statement at a time; atomic { …; … } runs several writes together)"],
  // Multi-line inputs: positions count lines and UTF-16 columns.
  ['users\n  | where age > 3\n  | select name,\n  | take 1', 'query', "4:3 unexpected '|' in select; expected an expression"],
  ['users # a comment\n  | where a # and = 3\n  and = 3', 'query', "3:7 unexpected '=' in where; expected an expression"],
  ['users | where "é😀" = 1', 'query', "1:21 unexpected '=' in where; expected '==' (use == to compare, : to name a field)"],
  ['collection users {\n  id: int primary\n  name: string,\n}', 'schema', "3:3 unexpected 'name' in field id; expected ',' (is a ',' missing at the end of the previous line?)"],
  ['insert users [{id: 1}\n  {id: 2}]', 'query', "2:3 unexpected '{' in insert; expected ',' (is a ',' missing at the end of the previous line?)"],
  ['collection users {\n  id int,\n}', 'schema', "2:6 unexpected 'int' in field id; expected ':'"],
  ['collection users {\n  id: int,\n  index (a b),\n}', 'schema', "3:12 unexpected 'b' in index; expected ',' or ')'"],
  ['query q($a int) {\n  users\n}', 'schema', "1:12 unexpected 'int' in query q; expected ':'"],
  ['collection c {}\ndropped users', 'schema', "2:9 unexpected 'users'; expected 'collection'"],
  ['collection c { id: int = }', 'schema', "1:26 unexpected '}' in field id; expected an expression"],
  ['collection c { tags: [string }', 'schema', "1:30 unexpected '}' in field tags; expected ']' or '?'"],
  ['collection c { id: }', 'schema', "1:20 unexpected '}' in field id; expected 'ref' or a type"],
  // Found by the AST builder.
  ['users | select lower(email)', 'query', '1:16 a computed column needs a name (write name: lower(email))'],
  ['users | where 1 < a < 3', 'query', "1:21 comparisons do not chain: '<' then '<' (combine them with and, as in a < b and b < c)"],
  ['users | where "a\\q"', 'query', "1:17 unknown escape '\\q' in string (the escapes are \\\" \\\\ \\n \\t and \\u{…})"],
  ['users | where "\\u{110000}"', 'query', "1:16 unknown escape '\\u{110000}' in string (write a code point as \\u{1F600} (1 to 6 hex digits, at most 10FFFF))"],
  ['users | take 9007199254740992', 'query', '1:14 integer 9007199254740992 is out of range (an int lies between -(2^53 - 1) and 2^53 - 1; write 1e20 for a float)'],
  ['users | take 1e999', 'query', '1:14 number 1e999 is out of range'],
  ['orders | aggregate n: summ(x)', 'query', "1:23 unknown aggregate function 'summ'; expected count, count_distinct, sum, min, max or avg (did you mean 'sum'?)"],
  ['orders | aggregate n: avg()', 'query', '1:20 avg() needs an argument (as in avg(amount))'],
  ['collection c { a: integer }', 'schema', "1:19 unknown type 'integer'; expected int, float, string, bool, timestamp or json"],
  ['collection c { a: strng }', 'schema', "1:19 unknown type 'strng'; expected int, float, string, bool, timestamp or json (did you mean 'string'?)"],
  ['collection c { a: int unique unique }', 'schema', "1:30 'unique' is given twice"],
  ['collection c { index () }', 'schema', '1:16 an index needs at least one field (as in index (status, created))'],
  ['collection c {}\nusers | take 1', 'schema', '2:1 queries cannot appear in a schema file (declare a named query instead: query name() { … })'],
  ['tenant create a', 'schema', '1:1 tenant operations cannot appear in a schema file (run them with tenantdb query or POST /ops)'],
  ['collection c {}', 'statement', '1:1 schema declarations cannot be run as statements (put them in a schema file)'],
]

t.ok(cases.length >= 15)

for (const [input, mode, expected] of cases) {
  t.test(JSON.stringify(input), async (t) => {
    const diagnostics = diagnose(input, mode)
    t.equal(diagnostics[0] === undefined ? 'no diagnostic' : formatDiagnostic(diagnostics[0]), expected)
  })
}

t.test('a diagnostic carries what was found, what was expected and its span', async (t) => {
  const [d] = syntaxDiagnostics('users | where age = 3')
  t.same(d, {
    code: 'syntax_error',
    message: "unexpected '=' in where; expected '=='",
    line: 1,
    column: 19,
    from: 18,
    to: 19,
    found: "'='",
    expected: ['=='],
    hint: 'use == to compare, : to name a field',
  })
  const [end] = syntaxDiagnostics('users | where a ==\n')
  t.match(end, { found: 'end of input', line: 2, column: 1, from: 19, to: 19 })
})

t.test('syntaxDiagnostics takes a mode and is empty for valid text', async (t) => {
  t.same(syntaxDiagnostics('users | take 1'), [])
  t.same(syntaxDiagnostics('collection a {}', 'schema'), [])
  t.same(syntaxDiagnostics('a + ', 'expression').map((d) => d.message), ['unexpected end of input; expected an expression'])
})

t.test('limits on nesting and chains are named as such', async (t) => {
  const first = (text: string): string => formatDiagnostic(diagnose(text)[0] ?? { code: 'syntax_error', message: 'none', line: 0, column: 0, from: 0, to: 0 })
  t.match(first(`users | where ${Array(700).fill('a').join(' + ')}`), /^1:\d+ expression of \d+ chained operators is too long to parse \(use x in \[a, b, …\]/)
  const parens = 200
  t.equal(first(`users | where ${'('.repeat(parens)}${Array(900).fill('1').join('+')}${')'.repeat(parens)} > 0`),
    `1:${15 + parens} expression too deep (more than 1000 levels of operators and nesting) (split long chains; x in [a, b, …] replaces long or chains)`,
    'nesting and a chain together')
  t.same(diagnose(`users | where ${Array(500).fill('a').join(' or ')}`), [], 'long chains below the limits parse')
})

t.test('too deep: every nesting construct beyond the limit gets the same diagnostic, naming the limit', async (t) => {
  const max = 256
  const message = `nested too deep (more than ${max} levels of brackets, calls and prefix operators) (flatten it)`
  // [name, mode, text with n levels, offset of the token that opens level n + 1]
  const where = 'users | where x == '
  const constructs: Array<[string, ParseMode, (n: number) => string, (n: number) => number]> = [
    ['records', 'query', (n) => `${where}${'{a: '.repeat(n)}1${'}'.repeat(n)}`, (n) => where.length + 4 * n],
    ['lists', 'query', (n) => `${where}${'['.repeat(n)}1${']'.repeat(n)}`, (n) => where.length + n],
    ['parentheses', 'query', (n) => `${where}${'('.repeat(n)}1${')'.repeat(n)}`, (n) => where.length + n],
    ['calls', 'query', (n) => `${where}${'abs('.repeat(n)}1${')'.repeat(n)}`, (n) => where.length + 4 * n],
    ['unary minus', 'query', (n) => `${where}${'- '.repeat(n)}x`, (n) => where.length + 2 * n],
    ['not', 'query', (n) => `users | where ${'not '.repeat(n)}x`, (n) => 'users | where '.length + 4 * n],
    ['not and parentheses', 'query', (n) => `users | where ${'not ('.repeat(n / 2)}x${')'.repeat(n / 2)}`, (n) => 'users | where '.length + 5 * (n / 2)],
    ['operands in parentheses', 'query', (n) => `${where}${'1 + ('.repeat(n)}1${')'.repeat(n)}`, (n) => where.length + 5 * n + 4],
    ['an update\'s values', 'query', (n) => `users | update {x: ${'{a: '.repeat(n)}1${'}'.repeat(n)}}`, (n) => 'users | update {x: '.length + 4 * n],
    ['in an atomic block', 'query', (n) => `atomic { insert users {}; ${where}${'['.repeat(n)}1${']'.repeat(n)} }`, (n) => 'atomic { insert users {}; '.length + where.length + n],
    ['list types', 'schema', (n) => `collection c { x: ${'['.repeat(n)}int${']'.repeat(n)} }`, (n) => 'collection c { x: '.length + n],
    ['a default', 'schema', (n) => `collection c { x: json = ${'['.repeat(n)}1${']'.repeat(n)}, index (x) }`, (n) => 'collection c { x: json = '.length + n],
    ['a named query', 'schema', (n) => `query q($p: int = 1) { ${where}${'('.repeat(n)}1${')'.repeat(n)} }`, (n) => 'query q($p: int = 1) { '.length + where.length + n],
  ]
  for (const [name, mode, make, offset] of constructs) {
    t.same(diagnose(make(max), mode), [], `${name}: ${max} levels parse`)
    // Just over the limit (the parser would take it) and far over it (the parser stops).
    for (const n of [max + 2, 1200, 3000]) {
      const [d] = diagnose(make(n), mode)
      t.equal(d === undefined ? 'parsed' : formatDiagnostic(d), `1:${offset(max) + 1} ${message}`, `${name}: ${n} levels`)
    }
  }
  t.same(diagnose(`${where}${'- '.repeat(max)}1`), [], 'a minus folded into a number is no level')
})
