// P10's consumer: follows the WebSocket tail from `after` on SOCKETS sockets (default
// 1), and once every socket has had `expected` events prints one JSON line
// {"events": [[lsn, arrived_ms], …], "counts": [n, …], "lsn_sums": [s, …],
// "cpu_micros": N} and exits. `events` are the first socket's, each parsed whole and
// timed on the clock the parent shares; the other sockets only read each event's LSN
// (the text starts `{"lsn":N,`), so one process can follow ten tails on this 2-core
// machine without its own parsing crowding the server out. Every socket checks that
// its LSNs only grow (no duplicate, nothing out of order) and exits with an error if
// not; the parent compares counts and LSN sums across sockets. `cpu_micros` is the CPU
// time this process used since its tails opened.
//
//   node tail-client.js WS_URL EXPECTED [SOCKETS]
import WebSocket from 'ws'
import { sharedClockMs } from '../harness/clock.js'

const [url, expected, sockets = '1'] = process.argv.slice(2)
if (url === undefined || expected === undefined) throw new Error('usage: tail-client WS_URL EXPECTED [SOCKETS]')
const want = Number(expected)
const width = Number(sockets)
const arrived: Array<[number, number]> = []
const counts = new Array<number>(width).fill(0)
const sums = new Array<number>(width).fill(0)
const lasts = new Array<number>(width).fill(-1)
let opened = 0
let done = 0
let cpuAtOpen = { user: 0, system: 0 }
const lsn_prefix = '{"lsn":'

function fail(message: string): never {
  process.stderr.write(`${message}\n`)
  process.exit(1)
}

for (let i = 0; i < width; i += 1) {
  const socket = new WebSocket(url)
  socket.on('open', () => {
    opened += 1
    if (opened < width) return
    cpuAtOpen = process.cpuUsage()
    process.stdout.write(`${JSON.stringify({ open: true })}\n`)
  })
  socket.on('message', (data: Buffer) => {
    let lsn: number
    if (i === 0) {
      const at = sharedClockMs()
      lsn = (JSON.parse(data.toString()) as { lsn: number }).lsn
      arrived.push([lsn, at])
    } else {
      if (data.toString('latin1', 0, lsn_prefix.length) !== lsn_prefix) fail(`socket ${i}: an event that does not start with ${lsn_prefix}`)
      lsn = parseInt(data.toString('latin1', lsn_prefix.length, lsn_prefix.length + 20), 10)
    }
    if (!(lsn > (lasts[i] as number))) fail(`socket ${i}: lsn ${lsn} after ${lasts[i] as number}`)
    lasts[i] = lsn
    sums[i] = (sums[i] as number) + lsn
    counts[i] = (counts[i] as number) + 1
    if (counts[i] !== want) return
    done += 1
    if (done < width) return
    const cpu = process.cpuUsage(cpuAtOpen)
    const report = { events: arrived, counts, lsn_sums: sums, cpu_micros: cpu.user + cpu.system }
    process.stdout.write(`${JSON.stringify(report)}\n`, () => process.exit(0))
  })
  socket.on('close', (code, reason) => fail(`tail ${i} closed early: ${code} ${reason.toString()}`))
  socket.on('error', (err) => fail(`tail ${i} error: ${err.message}`))
}
