// P10's consumer: follows the WebSocket tail from `after`, notes when each event
// arrives (on the clock the parent shares), and once `expected` events have come
// prints them as one JSON line {"events": [[lsn, arrived_ms], …], "cpu_micros": N}
// (the CPU time this consumer used, since it shares the machine's cores) and exits.
//
//   node tail-client.js WS_URL EXPECTED
import WebSocket from 'ws'
import { sharedClockMs } from '../harness/clock.js'

const [url, expected] = process.argv.slice(2)
if (url === undefined || expected === undefined) throw new Error('usage: tail-client WS_URL EXPECTED')
const want = Number(expected)
const arrived: Array<[number, number]> = []
const socket = new WebSocket(url)
socket.on('open', () => process.stdout.write(`${JSON.stringify({ open: true })}\n`))
socket.on('message', (data: Buffer) => {
  const at = sharedClockMs()
  const event = JSON.parse(data.toString()) as { lsn: number }
  arrived.push([event.lsn, at])
  if (arrived.length === want) {
    const cpu = process.cpuUsage()
    process.stdout.write(`${JSON.stringify({ events: arrived, cpu_micros: cpu.user + cpu.system })}\n`, () => process.exit(0))
  }
})
socket.on('close', (code, reason) => {
  process.stderr.write(`tail closed early: ${code} ${reason.toString()}\n`)
  process.exit(1)
})
socket.on('error', (err) => {
  process.stderr.write(`tail error: ${err.message}\n`)
  process.exit(1)
})
