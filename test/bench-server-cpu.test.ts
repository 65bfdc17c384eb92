// The bench's server CPU figure (bench/harness/server-cpu.ts) reads a real child's CPU
// time from /proc: a child that burns a known amount of CPU, measured by itself with
// process.cpuUsage(), must be seen burning that much from outside.
import t from 'tap'
import { startChild } from '../bench/harness/child.js'
import { clock_ticks_per_s, cpuDuring, microsPerRequest, processCpuSeconds } from '../bench/harness/server-cpu.js'

// On SIGUSR2 the child spins until its own user + system CPU has grown by 400 ms,
// then prints how much it measured.
const burner = `
const used = () => { const u = process.cpuUsage(); return u.user + u.system }
process.on('SIGUSR2', () => {
  const start = used()
  while (used() - start < 400000) {}
  console.log('burned ' + (used() - start))
})
console.log('ready')
setInterval(() => {}, 1000)
`

t.test('CPU of a child that burns 400 ms, read from /proc/PID/stat', async (t) => {
  t.ok(clock_ticks_per_s > 0, 'clock ticks per second known')
  const child = startChild(process.execPath, ['-e', burner])
  t.teardown(() => child.kill())
  await child.waitFor((line) => line === 'ready')
  const pid = child.process.pid as number
  const idle = processCpuSeconds(pid)
  t.ok(idle >= 0 && idle < 5, `a started Node uses little CPU (${idle} s)`)
  const { result, cpu_s } = await cpuDuring(pid, async () => {
    child.process.kill('SIGUSR2')
    return child.waitFor((line) => line.startsWith('burned '))
  })
  const selfMeasured = Number(result.slice('burned '.length)) / 1e6
  t.ok(selfMeasured >= 0.4, `the child measured ${selfMeasured} s itself`)
  // /proc counts whole clock ticks (10 ms at 100 per second), of every thread.
  t.ok(cpu_s >= selfMeasured - 0.03 && cpu_s <= selfMeasured + 0.15, `seen from outside: ${cpu_s} s, the child says ${selfMeasured} s`)
  t.equal(microsPerRequest(0.4, 1000), 400, '0.4 s over 1 000 requests is 400 us each')
  t.throws(() => microsPerRequest(1, 0), /CPU per request of 0 requests/)
})
