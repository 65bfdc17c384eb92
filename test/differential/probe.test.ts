import t from 'tap'
import { join } from 'node:path'
import { Engine } from '../../src/engine/index.js'
import { buildSchemaIR, fingerprint } from '../../src/schema/index.js'
import { QueryRunner } from '../../src/query/run.js'
import { tempDir } from '../helpers/temp-dir.js'

t.test('probe', async (t) => {
  const engine = await Engine.open(join(tempDir(t), 'db'))
  t.teardown(() => engine.close())
  const ir = buildSchemaIR([{ name: 's.eel', source: 'collection items { id: int primary, a: int?, b: int?, f: float?, s: string?, t: string?, flag: bool?, index (a), index (s, b) }' }])
  const runner = new QueryRunner(engine, { ir, fingerprint: await fingerprint(ir) })
  const q = async (text: string) => {
    try { const r = await runner.run('x', text); console.log(text, '=>', JSON.stringify({ c: r.columns, r: r.rows, p: r.plan })) }
    catch (e) { console.log(text, '=> ERR', (e as Error).name, (e as any).code, (e as Error).message, JSON.stringify((e as any).diagnostics)) }
  }
  await q('insert items [{id: 1, a: 1, s: "x", flag: true, f: 1.5}, {id: 2, a: null, b: 3}, {id: 3, a: -2, s: "é\\u{1F600}", t: "Q"}]')
  await q('items')
  await q('items | select id, x: a / 2, y: a % 2, z: a * b, l: len(s), u: upper(s), c: coalesce(a, b, 0), ab: abs(a)')
  await q('items | count')
  await q('items | aggregate n: count(), s: sum(a), lo: min(s), hi: max(f), m: avg(b) by a')
  await q('items | aggregate n: count(), s: sum(a), lo: min(s), hi: max(f), m: avg(b)')
  await q('items | where a > 100 | aggregate n: count(), s: sum(a), lo: min(s), hi: max(f), m: avg(b)')
  await q('items | distinct a, s')
  await q('items | where a in [1, null] | select id')
  await q('items | where not (a < 0) | select id')
  await q('items | where a == b | select id')
  await q('items | where a < f | select id')
  await q('items | where s < t | select id')
  await q('items | sort a desc | take 2')
  await q('items | where a == 1 | update {b: b + 1, s: null}')
  await q('items | where id == 2 | delete')
  await q('items')
  await q('items | select x: 1 / 0')
  await q('items | select x: a / 0')
  await q('items | where a in [] | count')
  await q('items | select x: a + f, y: -a, z: a - 1.5')
  await q('items | where flag == true | count')
  await q('items | where flag | count')
  await q('items | where a == 1.0 | count')
  await q('items | where (a == 1) == true | count')
  await q('items | select z: f % 2')
  await q('items | aggregate m: min(flag), x: max(flag) by flag')
})
