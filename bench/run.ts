// Entry point when the compiled harness is run directly (`npm run bench`).
import { runBench } from './main.js'

runBench(process.argv.slice(2)).then(
  () => process.exit(0),
  (err: unknown) => {
    process.stderr.write(`tenantdb bench: ${err instanceof Error ? err.stack ?? err.message : String(err)}\n`)
    process.exit(1)
  },
)
