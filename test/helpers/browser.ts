// A real headless Chromium for the console's tests: Debian's `chromium` driven by
// playwright-core (no browser download). A missing browser FAILS the test with the
// command that installs it (scripts/test-setup installs it); it is never skipped silently.
import { spawnSync } from 'node:child_process'
import { existsSync, mkdirSync } from 'node:fs'
import { join } from 'node:path'
import { chromium, type Browser, type Page } from 'playwright-core'
import type { Test } from 'tap'
import { package_root } from '../../src/package-root.js'
import { tempDir } from './temp-dir.js'

export const chromium_path = '/usr/bin/chromium'
// Nothing but the page under test talks to the network; playwright gives every launch
// a fresh profile (its own --user-data-dir).
const chromium_args = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync']

/** Where the screenshots go: under .tap/ (gitignored), kept after the run for people to look at. */
export const screenshot_dir = join(package_root, '.tap', 'console-screenshots')

/** The browser, closed when the test ends; throws (failing the test) when Chromium is missing. */
export async function launchBrowser(t: Test): Promise<Browser> {
  if (!existsSync(chromium_path)) {
    throw new Error(`${chromium_path} is missing: the console's browser test needs Debian's chromium. Install it with \`apt-get install -y chromium\` (npm test does this: scripts/test-setup).`)
  }
  const browser = await chromium.launch({ executablePath: chromium_path, args: chromium_args, timeout: 30_000 })
  t.teardown(() => browser.close())
  return browser
}

/** A page of a fresh context (its own sessionStorage), 1440×900, failing fast on a stuck step. */
export async function newPage(browser: Browser): Promise<Page> {
  const context = await browser.newContext({ viewport: { width: 1440, height: 900 }, deviceScaleFactor: 1 })
  const page = await context.newPage()
  page.setDefaultTimeout(10_000)
  return page
}

/** Saves a full-page screenshot as <dir>/<name>.png and returns its path. */
export async function screenshot(page: Page, name: string): Promise<string> {
  mkdirSync(screenshot_dir, { recursive: true })
  const file = join(screenshot_dir, `${name}.png`)
  await page.screenshot({ path: file, fullPage: true, animations: 'disabled' })
  return file
}

/**
 * Builds the console from its current sources into a temp dir (the same script as
 * `npm run build:console`, without its type-check), so the test never runs a stale
 * dist/console.
 */
export function buildConsole(t: Test): string {
  const out = join(tempDir(t, 'tenantdb-console-'), 'console')
  const run = spawnSync(process.execPath, [join(package_root, 'console', 'build.mjs'), '--out', out], { encoding: 'utf8' })
  if (run.status !== 0) throw new Error(`console build failed:\n${run.stdout}${run.stderr}`)
  return out
}
