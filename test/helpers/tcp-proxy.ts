// A TCP proxy on 127.0.0.1 for the partition test: it forwards to a target until cut,
// then holds every connection open without forwarding a byte either way (the network
// went silent, as a partition does, rather than refusing) and accepts new ones the
// same way; `heal` drops the held connections and forwards again.
import { createServer, connect, type Server, type Socket } from 'node:net'
import type { Test } from 'tap'

export interface TcpProxy {
  port: number
  cut(): void
  heal(): void
}

export async function startTcpProxy(t: Test, target: () => number): Promise<TcpProxy> {
  let cut = false
  const pairs = new Set<{ client: Socket; upstream: Socket | null }>()
  const server: Server = createServer((client) => {
    const pair: { client: Socket; upstream: Socket | null } = { client, upstream: null }
    pairs.add(pair)
    client.on('close', () => { pair.upstream?.destroy(); pairs.delete(pair) })
    client.on('error', () => {})
    if (cut) return
    const upstream = connect(target(), '127.0.0.1')
    pair.upstream = upstream
    upstream.on('error', () => client.destroy())
    upstream.on('close', () => client.destroy())
    client.on('data', (chunk) => { if (!cut) upstream.write(chunk) })
    upstream.on('data', (chunk) => { if (!cut) client.write(chunk) })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const address = server.address()
  if (address === null || typeof address !== 'object') throw new Error('proxy has no address')
  t.teardown(() => {
    for (const { client, upstream } of pairs) { client.destroy(); upstream?.destroy() }
    return new Promise<void>((resolve) => server.close(() => resolve()))
  })
  return {
    port: address.port,
    cut: () => { cut = true },
    heal: () => {
      cut = false
      for (const { client, upstream } of pairs) { client.destroy(); upstream?.destroy() }
      pairs.clear()
    },
  }
}
