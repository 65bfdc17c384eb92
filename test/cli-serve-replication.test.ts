// The flags that make `tenantdb serve` a node of a cluster (docs/replication.md,
// "Running a cluster"): what they parse to, each mistake refused with a sentence and
// exit 2, a node that would have to generate its token refused (the nodes share one),
// a directory of another cluster or another database refused with exit 1 before it
// serves, and the NATS credentials read from a file (a token file here, against a
// nats-server that requires it).
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import t from 'tap'
import { parseServeOptions } from '../src/cli/serve-options.js'
import { UsageError } from '../src/cli/usage-error.js'
import { ClusterNode, cluster_token, waitForPrimary, writeSchema } from './helpers/cluster.js'
import { startNatsServer } from './helpers/nats-server.js'
import { spawnCli } from './helpers/spawn-cli.js'
import { tempDir } from './helpers/temp-dir.js'

t.test('the replication flags parse', async (t) => {
  const parse = (args: string[]) => parseServeOptions(['--dir', '/tmp/x', ...args], {}).replication
  t.equal(parse([]), null, 'without --nats the server runs on its own')
  t.same(parse(['--nats', 'nats://127.0.0.1:4222,nats://127.0.0.1:4223', '--cluster', 'c1', '--node', 'n1', '--advertise', 'http://10.0.0.5:7070/', '--lease-ms', '2000', '--replication', 'async', '--nats-creds', '/etc/nats.creds', '--nats-replicas', '3']), {
    servers: ['nats://127.0.0.1:4222', 'nats://127.0.0.1:4223'], credentialsFile: '/etc/nats.creds', replicas: 3, cluster: 'c1', node: 'n1',
    advertise: 'http://10.0.0.5:7070', leaseMs: 2000, mode: 'async',
  })
  const defaults = parse(['--nats', '127.0.0.1:4222', '--cluster', 'c1'])
  t.match(defaults, { mode: 'sync', leaseMs: 3000, replicas: 1, advertise: undefined, credentialsFile: undefined })
  t.match(defaults?.node, /^[A-Za-z0-9_.-]+-[0-9a-f]{8}$/, 'a node id from the host name and the directory')
  t.equal(parse(['--nats', '127.0.0.1:4222', '--cluster', 'c1'])?.node, defaults?.node, 'the same for the same directory')
  const refusals: Array<[string[], RegExp]> = [
    [['--cluster', 'c1'], /--cluster is only for a node of a cluster/],
    [['--nats', 'http://x'], /--nats must be NATS server URLs/],
    [['--nats', ''], /--nats must be NATS server URLs/],
    [['--nats', '127.0.0.1:4222'], /--nats needs --cluster/],
    [['--nats', '127.0.0.1:4222', '--cluster', 'a b'], /--cluster must be/],
    [['--nats', '127.0.0.1:4222', '--cluster', 'c', '--node', 'x/y'], /--node must be/],
    [['--nats', '127.0.0.1:4222', '--cluster', 'c', '--advertise', 'nope'], /--advertise must be an http\(s\) URL/],
    [['--nats', '127.0.0.1:4222', '--cluster', 'c', '--advertise', 'ftp://x'], /--advertise must be an http\(s\) URL/],
    [['--nats', '127.0.0.1:4222', '--cluster', 'c', '--lease-ms', '100'], /--lease-ms must be a whole number from 500/],
    [['--nats', '127.0.0.1:4222', '--cluster', 'c', '--lease-ms', 'x'], /--lease-ms must be/],
    [['--nats', '127.0.0.1:4222', '--cluster', 'c', '--nats-replicas', '7'], /--nats-replicas must be a whole number from 1 to 5/],
    [['--nats', '127.0.0.1:4222', '--cluster', 'c', '--replication', 'semi'], /--replication must be sync or async/],
  ]
  for (const [args, message] of refusals) t.throws(() => parse(args), { constructor: UsageError, message }, args.join(' '))
})

t.test('a node refuses to start without the shared token, or on a directory of another cluster', async (t) => {
  const nats = await startNatsServer(t)
  const schema = writeSchema(t, 'collection items { id: int primary }\n')
  const dir = join(tempDir(t), 'db')
  const tokenless = spawnCli(t, ['serve', '--dir', dir, '--port', '0', '--nats', nats.url, '--cluster', 'c1'])
  t.equal(await tokenless.exited, 1, 'no token: exit 1')
  t.match(tokenless.stderr(), /no token: give the one the cluster's nodes share/)
  t.equal(await spawnCli(t, ['serve', '--cluster', 'c1']).exited, 2, 'a replication flag without --nats: exit 2')

  const a = new ClusterNode(t, { name: 'a', nats: () => nats.url, schema, cluster: 'one' })
  await a.start()
  await waitForPrimary([a])
  t.equal(await a.stop(), 0)
  const elsewhere = spawnCli(t, ['serve', '--dir', a.dir, '--port', '0', '--nats', nats.url, '--cluster', 'two', '--schema', schema], { SERVICE_TOKEN: cluster_token })
  t.equal(await elsewhere.exited, 1, 'a directory of another cluster: exit 1')
  t.match(elsewhere.stderr(), /this directory belongs to cluster one, not two/)

  const standalone = join(tempDir(t), 'standalone')
  const plain = spawnCli(t, ['serve', '--dir', standalone, '--port', '0', '--schema', schema], { SERVICE_TOKEN: cluster_token })
  await plain.waitFor(/url: /)
  plain.child.kill('SIGTERM')
  t.equal(await plain.exited, 0)
  const joining = spawnCli(t, ['serve', '--dir', standalone, '--port', '0', '--nats', nats.url, '--cluster', 'one', '--schema', schema], { SERVICE_TOKEN: cluster_token })
  t.equal(await joining.exited, 1, 'a database of its own joining a cluster that has one: exit 1')
  t.match(joining.stderr(), /belongs to no cluster, and cluster one has one already/)
})

t.test('NATS credentials come from a file', async (t) => {
  const nats = await startNatsServer(t, { args: ['--auth', 's3cret-nats-token'] })
  const schema = writeSchema(t, 'collection items { id: int primary }\n')
  const creds = join(tempDir(t), 'nats.token')
  writeFileSync(creds, 's3cret-nats-token\n', { mode: 0o600 })
  const a = new ClusterNode(t, { name: 'a', nats: () => nats.url, schema, extra: ['--nats-creds', creds] })
  await a.start()
  const { status } = await waitForPrimary([a])
  t.equal(status.nats_connected, true, 'connected with the token from the file')
  t.equal(await a.stop(), 0)
  t.notMatch(a.output, /s3cret-nats-token/, 'the secret appears in no output')
})
