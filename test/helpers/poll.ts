// Waiting for a condition instead of sleeping: a test that depends on something
// happening elsewhere (another connection, the event loop, another process) polls for
// it. The deadline is only a hang guard, far beyond any normal wait, so a loaded
// machine makes the test slower, never wrong.

/** How long any one wait may take before the test reports a hang. */
export const hang_guard_ms = 60_000

/** Resolves once `predicate()` is true; throws naming `what` (read when it fails) after `hang_guard_ms`. */
export async function pollUntil(predicate: () => boolean, what: string | (() => string), options: { hang_guard_ms?: number; interval_ms?: number } = {}): Promise<void> {
  const guard = options.hang_guard_ms ?? hang_guard_ms
  const deadline = Date.now() + guard
  while (!predicate()) {
    if (Date.now() > deadline) throw new Error(`hang guard: still waiting for ${typeof what === 'string' ? what : what()} after ${guard} ms`)
    await new Promise((resolve) => setTimeout(resolve, options.interval_ms ?? 5))
  }
}
