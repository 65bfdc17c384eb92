// Requests the routes' JSON schemas refuse (docs/api.md, "Requests"): each is a
// 400 `bad_request` whose sentence names the parameter or body field and what it must
// be, over real HTTP, and nothing is written. The bounds the OpenAPI document states
// are the ones the server enforces, because both come from the same schema: every
// integer query parameter the document bounds is refused one past its bound.
import t from 'tap'
import { opRequest } from '../src/http/routes/ops.js'
import { op_body } from '../src/http/wire/index.js'
import { validatorCompiler } from '../src/http/validation.js'
import { checkOpRequest, tenant_ops } from '../src/tenants/index.js'
import { openExampleDatabase, startServer } from './helpers/http-server.js'

const token = 'validation-token-0123456789abcd'
type Json = Record<string, any> // eslint-disable-line @typescript-eslint/no-explicit-any

t.test('refused parameters and bodies: 400 bad_request naming what is wrong', async (t) => {
  const db = await openExampleDatabase(t)
  await db.ops({ op: 'snapshot', name: 'default', target: 's1' })
  const { origin } = await startServer(t, { token, db })
  const auth = { authorization: `Bearer ${token}` }
  const refused = async (method: string, path: string, body: string | undefined, error: string, extra: Json = {}) => {
    const res = await fetch(origin + path, { method, headers: auth, ...(body === undefined ? {} : { body }) })
    t.equal(res.status, 400, `${method} ${path} ${body ?? ''}`)
    t.same(await res.json(), { error, code: 'bad_request', conflict: false, ...extra }, `${method} ${path} ${body ?? ''}`)
  }

  // Query strings: integers, bounds, repeats, required and non-empty strings.
  await refused('GET', '/api/v1/t/default/tail?after=x', undefined, 'after must be an integer, got "x"')
  await refused('GET', '/api/v1/t/default/tail?after=1.5', undefined, 'after must be an integer, got "1.5"')
  await refused('GET', '/api/v1/t/default/tail?after=-1', undefined, 'after must be at least 0, got -1')
  await refused('GET', '/api/v1/t/default/tail?after=1000000000000000', undefined, 'after may be at most 999999999999999, got 1000000000000000')
  await refused('GET', '/api/v1/t/default/tail?after=1&after=2', undefined, 'after may be given once')
  await refused('GET', '/api/v1/t/default/tail?limit=0', undefined, 'limit must be at least 1, got 0')
  await refused('GET', '/api/v1/t/default/diff', undefined, 'from is required')
  await refused('GET', '/api/v1/t/default/diff?from=', undefined, 'from may not be empty')
  await refused('GET', '/api/v1/t/default/diff?from=s1&collection=users&collection=orders', undefined, 'collection may be given once')

  // The ops body: the route refuses it in db.ops's words (docs/api.md, "Operations"):
  // the operation's shape is a tenant rule, checked below HTTP; the schema documents it.
  const ops = '/api/v1/t/default/ops'
  const not_an_object = 'a tenant operation is an object {"op": "…", "name": "…", "target": "…"}'
  await refused('POST', ops, 'resume default', not_an_object)
  await refused('POST', ops, '[]', not_an_object)
  await refused('POST', ops, '{"name": "default"}', 'unknown tenant operation none; expected one of create, fork, snapshot, restore, suspend, resume, delete, compact, limit')
  await refused('POST', ops, '{"op": "explode"}', 'unknown tenant operation "explode"; expected one of create, fork, snapshot, restore, suspend, resume, delete, compact, limit')
  await refused('POST', ops, '{"op": "fork"}', 'fork needs a target')
  await refused('POST', ops, '{"op": "snapshot", "target": 5}', 'target must be a string')
  await refused('POST', ops, '{"op": "create", "name": "Not A Name"}', 'tenant names are 1 to 63 of a-z, 0-9, _ and -, starting with a letter or digit; got "Not A Name"')
  await refused('POST', ops, '{"op": "snapshot", "target": "Not@snap"}', 'snapshot names are 1 to 63 of a-z, 0-9, _ and -, starting with a letter or digit; got "Not@snap"')

  // The query body: the text itself, or {"query"|"text", "params"}.
  const query = '/api/v1/t/default/query'
  await refused('POST', query, '{}', 'the body needs "query" or "text"')
  await refused('POST', query, '{"query": "users", "text": "users"}', 'the body may give "query" or "text", not both')
  await refused('POST', query, '{"query": 1}', '"query" in the body must be a string, got the number 1')
  await refused('POST', query, '{"query": "users", "params": [1]}', '"params" in the body must be an object, got an array')
  await refused('POST', query, '5', 'the body must be text or a JSON object, got the number 5')
  await refused('POST', query, 'null', 'the body must be text or a JSON object, got nothing')
  await refused('POST', query, undefined, 'the body must be text or a JSON object, got nothing')

  t.same((await db.tenant('default').query('users')).rows, [], 'nothing was written')
  t.same((await db.tenants()).tenants.map((x) => x.name), ['default'], 'no tenant was created')

  // What the schemas accept: the query text as a JSON string, or as any other text.
  for (const body of ['"users | take 1"', 'users | take 1', '{"text": "users | where age > $a", "params": {"a": 1}}']) {
    const res = await fetch(origin + query, { method: 'POST', headers: auth, body })
    t.equal(res.status, 200, `the query body ${body}`)
    t.match(await res.json(), { columns: Array, rows: [] })
  }
})

t.test('every bound the document states on a query parameter is the server\'s', async (t) => {
  const db = await openExampleDatabase(t)
  await db.ops({ op: 'snapshot', name: 'default', target: 's1' })
  const { origin } = await startServer(t, { token, db })
  const auth = { authorization: `Bearer ${token}` }
  const doc = (await (await fetch(`${origin}/api/v1/openapi.json`, { headers: auth })).json()) as Json
  // The other parameters a request needs to reach its checks.
  const needed: Record<string, string> = { '/api/v1/t/{tenant}/diff': 'from=s1&' }
  let checked = 0
  for (const [path, item] of Object.entries(doc.paths as Json)) {
    for (const parameter of ((item as Json).get?.parameters ?? []) as Json[]) {
      if (parameter.in !== 'query' || parameter.schema.type !== 'integer') continue
      const base = `${origin}${path.replace('{tenant}', 'default')}?${needed[path] ?? ''}`
      for (const [bound, past] of [['maximum', 1], ['minimum', -1]] as const) {
        const stated: unknown = parameter.schema[bound]
        if (typeof stated !== 'number') continue
        const value = stated + past
        const res = await fetch(`${base}${parameter.name}=${value}`, { headers: auth })
        t.equal(res.status, 400, `${path} ${parameter.name}=${value} (one past its ${bound})`)
        t.match(await res.json(), { code: 'bad_request', error: new RegExp(`^${parameter.name} `) })
        checked += 1
      }
    }
  }
  t.equal(checked, 10, 'both bounds of the five integer parameters (diff: limit; tail: after, limit, wait_ms; trends: after)')
})

t.test('the ops body schema and checkOpRequest accept and refuse the same bodies', async (t) => {
  // checkOpRequest is the body's one check; the schema only describes the body in the
  // OpenAPI document. This holds the description true, over every combination of these
  // ops, names, targets and limits (absent, valid, invalid, wrong type).
  const accepts = validatorCompiler({ schema: op_body, method: 'POST', url: '/api/v1/t/:tenant/ops', httpPart: 'body' }) as (data: unknown) => boolean
  const ops = [...tenant_ops, 'explode', 7, undefined]
  const names = [undefined, 'acme', 'acme@before', 'acme@', '@before', 'No Such', 'a@b@c', 5, null]
  const targets = [undefined, 'b2', 'Not A Name', 'x@y', 3, null]
  const limitss = [undefined, { commits_per_s: 5, storage_bytes: null }, { nope: 1 }, { commits_per_s: 0 }, { statement_time_ms: 1.5 }, 'x', null]
  let agreed = 0
  let valid = 0
  for (const op of ops) {
    for (const name of names) {
      for (const [target, limits] of targets.flatMap((target) => limitss.map((limits) => [target, limits] as const))) {
        const body: Json = {}
        if (op !== undefined) body.op = op
        if (name !== undefined) body.name = name
        if (target !== undefined) body.target = target
        if (limits !== undefined) body.limits = limits
        let checked = true
        try {
          checkOpRequest(opRequest(body, 'default'))
        } catch (err) {
          checked = false
          t.equal((err as { code?: string }).code, 'bad_request', `${JSON.stringify(body)}: refused as bad_request`)
        }
        if (accepts(body) === checked) agreed++
        else t.fail(`${JSON.stringify(body)}: the schema ${checked ? 'refuses' : 'accepts'} it, checkOpRequest ${checked ? 'accepts' : 'refuses'} it`)
        if (checked) valid++
      }
    }
  }
  t.equal(agreed, ops.length * names.length * targets.length * limitss.length, `all ${agreed} bodies: the same verdict`)
  t.ok(valid >= 20 && valid < agreed / 2, `${valid} of them valid, the rest refused: both verdicts were tried`)
  for (const body of [null, 'create', ['create'], 5]) {
    t.notOk(accepts(body), `the schema refuses ${JSON.stringify(body)}`)
    t.throws(() => checkOpRequest(opRequest(body, 'default')), { code: 'bad_request' }, `and so does the check`)
  }
})
