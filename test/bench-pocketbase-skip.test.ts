// The PocketBase anchor of P9 and P16 (bench/anchors/pocketbase-build.ts) is built
// with `go`; where `go` is not on the PATH the workload notes why in one line and
// runs its other contenders. Run here with the real PATH less every folder holding a
// `go`, and a build folder of its own (so no binary an earlier run built is found).
import { existsSync } from 'node:fs'
import { delimiter, join } from 'node:path'
import t from 'tap'
import { preparePocketbase, pocketbaseBinary } from '../bench/anchors/pocketbase-build.js'
import { BenchContext } from '../bench/harness/context.js'
import { Progress } from '../bench/harness/progress.js'
import { Recorder } from '../bench/harness/recorder.js'
import { renderWorkload } from '../bench/harness/report.js'
import { tempDir } from './helpers/temp-dir.js'

const path_without_go = (process.env.PATH ?? '').split(delimiter).filter((dir) => dir !== '' && !existsSync(join(dir, 'go'))).join(delimiter)

t.test('without go on the PATH: no binary, one line in the report', async (t) => {
  const dir = tempDir(t)
  const env = { ...process.env, PATH: path_without_go }
  const buildRoot = join(dir, 'build')
  t.same(pocketbaseBinary({ env, buildRoot }), { skipped: '`go` is not on the PATH, so PocketBase cannot be built' })
  const ctx = new BenchContext({ quick: true, reps: 1, base: dir }, new Progress())
  t.teardown(() => ctx.dispose())
  const rec = new Recorder()
  t.equal(preparePocketbase(ctx, rec, { env, buildRoot }), null)
  rec.figure('tenantdb', 'tenantdb', 'req/s', [1])
  const report = renderWorkload(rec.result('P16', 'HTTP durable single-row inserts', 1))
  const lines = report.split('\n').filter((line) => line.includes('PocketBase'))
  t.same(lines, ['    · PocketBase anchor not run: `go` is not on the PATH, so PocketBase cannot be built'])
  t.match(report, /tenantdb +1\.00 req\/s/, 'the other figures are still reported')
  t.notOk(existsSync(buildRoot), 'nothing was built')
})
