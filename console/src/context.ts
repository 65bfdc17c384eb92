// What every page is given: the API client, the connection settings, and the state
// shared across pages (write mode, the tenant being looked at).
import type { ApiClient } from './api/client.js'
import type { SchemaStore } from './state/schema-store.js'
import type { Access } from './api/types.js'
import type { Settings } from './state/settings.js'
import type { Signal } from './state/signal.js'

export interface Context {
  api: ApiClient
  settings: Settings
  /** Tenant operations are disabled until this is switched on (docs/operations.md, "The operator console"). */
  writeMode: Signal<boolean>
  /** The tenant the Query, Tail and Diff pages work on. */
  tenant: Signal<string>
  /** The loaded schema per tenant, shared by the pages that read it. */
  schemas: SchemaStore
  /** What the token opens (GET /api/v1/access); null until known. */
  access: Signal<Access | null>
  /** Asks the server again what the token opens (after a fork by an admin token). */
  refreshAccess(): Promise<void>
  /** Forgets the token and shows the token form, saying why. */
  signOut(notice?: string): void
  navigate(hash: string): void
}

export interface Page {
  element: HTMLElement
  /** Stops timers and sockets when the page is left. */
  dispose?(): void
}

export type PageFactory = (ctx: Context, args: string[]) => Page
