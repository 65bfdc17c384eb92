export const usage = `usage: tenantdb <command> [options]

commands:
  serve [--dir DIR] [--host HOST] [--port PORT] [--schema FILE]... [--token TOKEN]
        [--console-origin URL]... [--allowed-host NAME]... [--checkpoint-wal-bytes N]
        [--tail-retention-bytes N] [--log-level LEVEL]
        serve DIR (default ./data, or TENANTDB_DIR) over HTTP on HOST:PORT
        (default 127.0.0.1:7070, or TENANTDB_PORT). The token comes from --token,
        SERVICE_TOKEN, DIR/service.token, or is generated into DIR/service.token.
        Requests must name the server in Host: its listen address (for loopback
        also localhost, 127.0.0.1, [::1]; for 0.0.0.0 or :: every local address)
        or an --allowed-host (e.g. tenantdb.lan). Requests from a browser origin
        other than the server's own or an --console-origin (e.g.
        http://localhost:5173) are refused with 403. SIGTERM/SIGINT stop it
        cleanly: in-flight requests finish, new ones get 503, exit 0.
        --checkpoint-wal-bytes (or TENANTDB_CHECKPOINT_WAL_BYTES) checkpoints once
        that many WAL bytes follow the last checkpoint (default 64 MiB).
        --tail-retention-bytes (or TENANTDB_TAIL_RETENTION_BYTES) keeps that many
        checkpointed WAL bytes for change-tail consumers to resume from (default
        256 MiB; 0 keeps only what recovery needs).
        Logs one JSON line per request on stdout (the banner goes to stderr);
        --log-level (or LOG_LEVEL) is fatal, error, warn, info (default), debug,
        trace or silent. Metrics for Prometheus: GET /api/v1/metrics.
        --nats URL[,URL] --cluster NAME [--node ID] [--advertise URL]
        [--lease-ms N] [--replication sync|async] [--nats-creds FILE]
        [--nats-replicas N] make it a node of a cluster through NATS JetStream:
        one primary takes writes, followers copy its backup, apply its WAL and
        serve reads (writes: 421 with the primary's URL), a follower takes over
        within about --lease-ms (default 3000) when it dies. sync (default)
        acknowledges a commit once the stream holds it. The nodes share one
        token (SERVICE_TOKEN or --token), never generated. docs/replication.md.

  compact DIR [TENANT]
        rewrite the live rows of TENANT (default 'default') into fresh pages, then
        move the live pages down the page file and cut its free tail off;
        snapshots and forks stay readable. Prints the collection, row and page
        counts, the elapsed milliseconds and the page file's bytes before and after.

  verify DIR
        check every page and WAL frame checksum, the tree invariants and the space
        map (live and free page slots disjoint and covering the file). Reads only.
        Prints a summary and exits 0 when clean; prints each problem and exits 1.

  compact and verify refuse a directory a running server holds (exit 2).

  backup (--url URL [--token TOKEN] | DIR) OUT
        write a backup archive of the whole database, consistent at one LSN, to
        OUT (- for stdout; an existing file is refused): from the server at URL
        while it serves (token from --token or SERVICE_TOKEN), or from DIR when
        no server holds it (read-only). Progress on a terminal.

  restore ARCHIVE DIR
        unpack ARCHIVE (- for stdin) into DIR (absent or empty), checking every
        file's size and checksum, then open and verify it before moving it into
        place. Any damage: exit 1 and nothing restored.

  token create|list|revoke (--url URL [--token TOKEN] | DIR) TENANT ...
        issue, list or revoke tokens that open one tenant (read, write or
        admin), through a running server or in a stopped directory; the token
        is printed once. tenantdb token --help says more.

  bench [--quick] [--out FILE] [--only P1,P3,...] [--reps N] [--dir DIR]
        run the benchmark workloads P1-P14 against raw fdatasync, better-sqlite3,
        lmdb and bare fastify side by side (a checkout with dev dependencies;
        the same as npm run bench). --quick takes about two minutes.

  tenantdb --version     print the version
  tenantdb --help        print this text
`
