// What `tenantdb --help` and `tenantdb COMMAND --help` print: one text per command,
// and the overview made of each command's summary. A new command adds its entry here
// and its function in main.ts; `--help` and `-h` then work for it (main.ts).
// Environment variables are listed with their flags (docs/operations.md, "Flags and
// environment variables"): a flag given wins over its variable.

export interface CommandHelp {
  /** One line for the overview. */
  summary: string
  /** The whole text of `tenantdb COMMAND --help`, starting with its usage line. */
  text: string
}

export const command_help: Record<string, CommandHelp> = {
  serve: {
    summary: 'serve a database directory over HTTP',
    text: `usage: tenantdb serve [--dir DIR] [--host HOST] [--port PORT] [--schema FILE]... [--token TOKEN]
                      [--console-origin URL]... [--allowed-host NAME]... [--checkpoint-wal-bytes N]
                      [--tail-retention-bytes N] [--log-level LEVEL] [--workers N]
                      [--tenant-limit NAME=N]... [--budget-wait-ms N] [--metrics-tenants N]

Serves DIR over HTTP on HOST:PORT (the API at /api/v1, the console at /console/).

  --dir DIR                  the database directory (default ./data)          TENANTDB_DIR
  --host HOST                the address to listen on (default 127.0.0.1)     TENANTDB_HOST
  --port PORT                the port (default 7070; 0 picks a free one)      TENANTDB_PORT
  --schema FILE              a schema file (.eel); repeat for several         TENANTDB_SCHEMA (FILE:FILE...)
  --token TOKEN              the service token                                SERVICE_TOKEN
  --console-origin URL       a browser origin allowed to call the API         TENANTDB_CONSOLE_ORIGIN (URL,URL...)
                             (e.g. http://localhost:5173); repeatable
  --allowed-host NAME        a host name the server answers to besides its    TENANTDB_ALLOWED_HOST (NAME,NAME...)
                             listen address (e.g. tenantdb.lan); repeatable
  --checkpoint-wal-bytes N   checkpoint once N WAL bytes follow the last      TENANTDB_CHECKPOINT_WAL_BYTES
                             checkpoint (default 64 MiB)
  --tail-retention-bytes N   checkpointed WAL kept for change-tail consumers  TENANTDB_TAIL_RETENTION_BYTES
                             to resume from (default 256 MiB; 0: none)
  --log-level LEVEL          fatal, error, warn, info (default), debug,       LOG_LEVEL
                             trace or silent
  --workers N                threads serving HTTP (default: the machine's     TENANTDB_WORKERS
                             cores; 1: one thread); a cluster node uses one
  --tenant-limit NAME=N      a limit of every tenant that sets none of its    TENANTDB_TENANT_LIMITS (NAME=N,NAME=N...)
                             own, such as commits_per_s=500 or
                             storage_bytes=1073741824; repeatable (the
                             names: docs/operations.md, "Isolation")
  --budget-wait-ms N         longest a statement waits for its tenant's       TENANTDB_BUDGET_WAIT_MS
                             budget before 429 rate_limited (default 2000)
  --metrics-tenants N        tenants the metrics name, the busiest; the rest  TENANTDB_METRICS_TENANTS
                             are summed as tenant="other" (default 20)

A node of a cluster through NATS JetStream (docs/replication.md):
  --nats URL[,URL]           the NATS servers; without it, a single server
  --cluster NAME             the cluster to join (with --nats)
  --node ID                  this node's name in the cluster
  --advertise URL            the URL other nodes and clients reach it at
  --lease-ms N               the primary's lease (default 3000, at least 500)
  --replication MODE         sync (default: a commit is acknowledged once the
                             stream holds it) or async (after the local fsync)
  --nats-creds FILE          NATS credentials: a .creds file or a token file
  --nats-replicas N          replicas of the stream and bucket (1, 3 or 5)
One primary takes writes; followers copy its backup, apply its WAL and serve
reads (writes get 421 with the primary's URL); a follower takes over within
about --lease-ms when the primary dies. The nodes share one token
(SERVICE_TOKEN or --token), never generated.

The token comes from --token, SERVICE_TOKEN, DIR/service.token, or is generated
into DIR/service.token. Without a schema the server warns: tenants then have no
collections. Requests must name the server in Host: its listen address (for
loopback also localhost, 127.0.0.1, [::1]; for 0.0.0.0 or :: every local address)
or an --allowed-host. Requests from a browser origin other than the server's own
or a --console-origin are refused with 403. A port in use fails before the
directory is touched (exit 2). Logs one JSON line per request on stdout; the
banner and warnings go to stderr. Metrics for Prometheus: GET /api/v1/metrics.
SIGTERM/SIGINT stop it cleanly: in-flight requests finish, new ones get 503, exit 0.
`,
  },
  query: {
    summary: 'run Eel against a directory or a server; a shell on a terminal',
    text: `usage: tenantdb query DIR [--schema FILE]... [--tenant T] [--params JSON] [--format FORMAT] [STATEMENT | -]
       tenantdb query --url URL [--token TOKEN] [--tenant T] [--params JSON] [--format FORMAT] [STATEMENT | -]

Runs one Eel statement (a query, a write, an atomic block, or a tenant operation
such as 'tenant fork default as staging') and prints its result. '-' reads the
statement from stdin. Without a statement, on a terminal, it is an interactive
shell (.help lists its commands); with stdin not a terminal, the statement is read
from stdin.

DIR is opened embedded, with no server; a directory a running server holds is
refused (exit 2): query that server with --url. Without --schema the tenant is
queried at the schema it was last migrated to, and nothing is migrated; with
--schema its lazy migration applies, as in serve. With --schema a new DIR (absent
or empty) is created first, as sqlite3 new.db does, and a line on stderr says so;
without, a directory that holds no database is refused (exit 1).

  --schema FILE        a schema file (.eel); repeat for several              TENANTDB_SCHEMA (FILE:FILE...)
  --tenant T           the tenant queried (default 'default')                TENANTDB_TENANT
  --params JSON        the statement's parameters, a JSON object ($name)
  --format FORMAT      table (the default on a terminal), json (otherwise)
                       or csv
  --url URL            a running server (e.g. http://127.0.0.1:7070)         TENANTDB_URL
  --token TOKEN        its service token                                     SERVICE_TOKEN

While TENANTDB_URL is set, a lone argument is the statement (give DIR and the
statement to open a directory instead). Errors print the diagnostic with its line
and column and exit 1. The shell keeps its history in ~/.tenantdb_history
(TENANTDB_HISTORY names another file; empty: none).
`,
  },
  compact: {
    summary: "rewrite a tenant's rows into fresh pages and shrink the page file",
    text: `usage: tenantdb compact DIR [TENANT]

Rewrites the live rows of TENANT (default 'default') into fresh pages, then moves
the live pages down the page file and cuts its free tail off; snapshots and forks
stay readable. Prints the collection, row and page counts, the elapsed
milliseconds and the page file's bytes before and after. On a terminal a progress
line shows the step running, done of its total, and the rate. A directory a
running server holds is refused (exit 2): use POST /api/v1/t/TENANT/ops with
{"op":"compact"} there.
`,
  },
  verify: {
    summary: 'check every checksum, the trees and the space map (read-only)',
    text: `usage: tenantdb verify DIR

Checks every page and WAL frame checksum, the tree invariants and the space map
(live and free page slots disjoint and covering the file). Reads only: not a byte
of DIR changes. Prints a summary and exits 0 when clean; prints each problem and
exits 1. On a terminal a progress line shows the pages, then the WAL bytes, done
of their total with the rate. A directory a running server holds is refused
(exit 2).
`,
  },
  repair: {
    summary: 'rebuild the space map from the trees, then verify',
    text: `usage: tenantdb repair DIR

Recounts which page slots are live, free or waiting from the trees themselves,
writes that space map with a checkpoint, and verifies the directory. The space
map is derivable from the pages, so nothing is lost: use it when verify reports
space map problems (a wrong count, a leaked or doubly used slot). Prints the
slot counts and exits 0 when the directory then verifies clean; prints each
problem left (damaged pages: restore their tenants from a backup) and exits 1.
A directory a running server holds is refused (exit 2).
`,
  },
  backup: {
    summary: 'write a consistent backup archive, from a server or a directory',
    text: `usage: tenantdb backup --url URL [--token TOKEN] OUT
       tenantdb backup DIR OUT

Writes a backup archive of the whole database, consistent at one LSN, to OUT (-
for stdout; an existing file is refused): from the server at URL while it serves,
or from DIR when no server holds it (read-only). Progress on a terminal.

  --url URL        a running server (e.g. http://127.0.0.1:7070)             TENANTDB_URL
  --token TOKEN    its service token                                         SERVICE_TOKEN

While TENANTDB_URL is set, a lone argument is OUT (give DIR and OUT to back up a
directory instead).
`,
  },
  restore: {
    summary: 'restore a backup archive into an empty directory, verified',
    text: `usage: tenantdb restore ARCHIVE DIR

Unpacks ARCHIVE (- for stdin) into DIR (absent or empty), checking every file's
size and checksum, then opens and verifies the result before moving it into
place. Any damage: exit 1 and nothing restored. Progress on a terminal.
`,
  },
  token: {
    summary: 'issue, list and revoke tokens that open one tenant',
    text: `usage: tenantdb token <create|list|revoke> (--url URL [--token TOKEN] | DIR) TENANT ...

  token create (--url URL [--token TOKEN] | DIR) TENANT --scope SCOPE
               [--name NAME] [--expires-in SECONDS]
        issue a token that opens TENANT only, and print it on stdout (it is
        shown this once: only its SHA-256 is stored). SCOPE is read (queries
        that read, collections, schema, snapshots, diff, tail), write (also
        queries that write) or admin (also snapshot, fork, suspend, resume,
        compact). --expires-in: seconds until it expires (default: never).

  token list (--url URL [--token TOKEN] | DIR) TENANT [--json]
        the tokens that open TENANT: id, scope, name, created, expires, last
        used (never a secret).

  token revoke (--url URL [--token TOKEN] | DIR) TENANT ID
        revoke token ID: refused from the next request on; its open change
        tails close.

  With --url the server does it (URL is its address, with or without /api/v1;
  the service token comes from --token or SERVICE_TOKEN; TENANTDB_URL stands
  for --url when no DIR is given). With DIR the directory is changed directly;
  no server may hold it (exit 2).
`,
  },
  bench: {
    summary: 'run the benchmark workloads (a checkout with dev dependencies)',
    text: `usage: tenantdb bench [--quick] [--out FILE] [--only P1,P3,...] [--reps N] [--dir DIR]

Runs the benchmark workloads P1-P16 and P18 against raw fdatasync, better-sqlite3, lmdb,
bare fastify and PocketBase (built with go when present) side by side (a checkout
with dev dependencies; the same as npm run bench). --quick takes a few minutes.
`,
  },
}

/** `tenantdb --help`: every command's summary. */
export function overview(): string {
  const names = Object.keys(command_help)
  const width = Math.max(...names.map((n) => n.length))
  const lines = names.map((name) => `  ${name.padEnd(width)}  ${(command_help[name] as CommandHelp).summary}`)
  return `usage: tenantdb <command> [options]

commands:
${lines.join('\n')}

  tenantdb <command> --help   that command's options
  tenantdb --version          the version

Exit codes: 0 success, 1 failure, 2 usage, a locked directory or a port in use.
`
}
