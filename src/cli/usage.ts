export const usage = `usage: tenantdb <command> [options]

commands:
  serve [--dir DIR] [--host HOST] [--port PORT] [--schema FILE]... [--token TOKEN]
        serve DIR (default ./data, or TENANTDB_DIR) over HTTP on HOST:PORT
        (default 127.0.0.1:7070, or TENANTDB_PORT). The token comes from --token,
        SERVICE_TOKEN, DIR/service.token, or is generated into DIR/service.token.

  tenantdb --version     print the version
  tenantdb --help        print this text
`
