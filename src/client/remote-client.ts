// The client of a server or cluster over HTTP (docs/client.md): the server-wide calls,
// and a RemoteTenant per tenant, all sharing one set of nodes.
import { refused } from './refusal.js'
import { Nodes, type NodesOptions } from './nodes.js'
import { RemoteTenant } from './remote-tenant.js'
import { TenantdbError } from './errors.js'
import type { Access, BackupStream, CallOptions, Client, ClientTenant, Health, HealthDetail, OpRequest, OpResult, Stats, TenantEntry, Trends, TrendsOptions } from './types.js'

export class RemoteClient implements Client {
  readonly #nodes: Nodes

  constructor(options: NodesOptions) {
    this.#nodes = new Nodes(options)
  }

  tenant(name: string): ClientTenant {
    return new RemoteTenant(this.#nodes, name)
  }

  async tenants(options: CallOptions = {}): Promise<{ tenants: TenantEntry[] }> {
    return (await this.#get('/api/v1/tenants', options)) as { tenants: TenantEntry[] }
  }

  async health(options: CallOptions = {}): Promise<Health> {
    return (await this.#get('/api/v1/health', options)) as Health
  }

  async healthDetail(options: CallOptions = {}): Promise<HealthDetail> {
    return (await this.#get('/api/v1/health/detail', options)) as HealthDetail
  }

  async stats(options: CallOptions = {}): Promise<Stats> {
    return (await this.#get('/api/v1/stats', options)) as Stats
  }

  /** Plain text: the transport gives a body that is not JSON as it came. */
  async schemaSource(options: CallOptions = {}): Promise<string> {
    return String(await this.#get('/api/v1/schema.eel', options))
  }

  async backup(options: CallOptions = {}): Promise<BackupStream> {
    const response = (await this.#nodes.read({ method: 'GET', path: '/api/v1/backup', stream: true }, options.signal)) as Response
    const bytes = Number(response.headers.get('content-length'))
    const lsn = Number(response.headers.get('x-backup-lsn'))
    if (!Number.isSafeInteger(bytes) || !Number.isSafeInteger(lsn) || response.body === null) {
      await response.body?.cancel()
      throw new TenantdbError(`http_${response.status}`, 'the answer is no tenantdb backup (no Content-Length or X-Backup-Lsn)', { status: response.status })
    }
    return { lsn, bytes, body: response.body }
  }

  async access(options: CallOptions = {}): Promise<Access> {
    return (await this.#get('/api/v1/access', options)) as Access
  }

  async trends(options: TrendsOptions = {}): Promise<Trends> {
    return (await this.#nodes.read({ method: 'GET', path: '/api/v1/trends', query: { after: options.after } }, options.signal)) as Trends
  }

  /** Sent as the operation route of the tenant it names (`name`, before any `@snapshot`). */
  async ops(request: OpRequest, options: CallOptions = {}): Promise<OpResult> {
    return this.tenant(tenantOf(request)).ops(request, options)
  }

  /** Nothing to release: every request is its own (fetch keeps no session of ours). */
  async close(): Promise<void> {}

  #get(path: string, options: CallOptions): Promise<unknown> {
    return this.#nodes.read({ method: 'GET', path }, options.signal)
  }
}

/** The tenant an operation is about, whose route it is sent to. */
export function tenantOf(request: OpRequest): string {
  if (typeof request.name !== 'string' || request.name === '') throw refused('bad_request', `the operation needs the tenant it is about: name`)
  return request.name.split('@')[0] as string
}
