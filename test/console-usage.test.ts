// A tenant's usage in the operator console (docs/operations.md, "The operator
// console"), in a real headless Chromium against a real server: the Tenants page's
// usage panel shows what the tenant used and moves with its writes (figures and the
// trend drawn from the usage route, polled about once a second); in write mode its
// form sets a limit (the usage route then shows it, and the page's limits table),
// clears it, and shows the server's refusal of a value it refuses. Other console
// sessions: test/console-browser.test.ts.
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import t from 'tap'
import { package_root } from '../src/package-root.js'
import { buildConsole, launchBrowser, newPage, screenshot } from './helpers/browser.js'
import { openDatabase } from './helpers/database.js'
import { api, startServer } from './helpers/http-server.js'

const token = 'console-usage-token-0123456789abcdef'
const schema = readFileSync(join(package_root, 'examples', 'schema.eel'), 'utf8')

t.test('the tenant page shows usage that moves with writes, and sets a limit', async (t) => {
  const browser = await launchBrowser(t)
  const consoleDir = buildConsole(t)
  const { db } = await openDatabase(t, schema)
  const { origin } = await startServer(t, { token, db, consoleDir })
  const call = api(origin, token)
  t.equal((await call('/api/v1/t/default/ops', { json: { op: 'create', name: 'acme' } })).status, 200)
  const insert = async (from: number, n: number) => {
    const rows = Array.from({ length: n }, (_, i) => `{id: ${from + i}, email: "u${from + i}@x", name: "n"}`).join(', ')
    const res = await call('/api/v1/t/acme/query', { json: { query: `insert users [${rows}]` } })
    if (res.status !== 200) throw new Error(JSON.stringify(res.body))
  }
  await insert(1, 3)

  const page = await newPage(browser)
  const pageErrors: string[] = []
  page.on('pageerror', (error) => pageErrors.push(error.message))
  await page.goto(`${origin}/console/`)
  await page.fill('#token', token)
  await page.click('form.connect-form button[type=submit]')
  await page.waitForSelector('a.nav-link[href="#/tenants"]')
  await page.evaluate(() => { location.hash = '#/tenants/acme' })
  await page.waitForSelector('.detail-title:has-text("acme")')
  const written = page.locator('.usage-panel [data-usage="rows_written"]')
  await written.waitFor()
  t.equal(await written.textContent(), '3', 'the rows written so far')

  await insert(10, 40)
  await page.waitForFunction(() => document.querySelector('.usage-panel [data-usage="rows_written"]')?.textContent === '43')
  t.pass('the figure moved with the writes')
  // The trend: a rate drawn between two polls, non-zero once the writes were seen.
  await page.waitForFunction(() => /written [1-9]/.test(document.querySelector('.usage-panel figure[data-trend="rows_examined rows_written"]')?.getAttribute('aria-label') ?? '') ||
    Number(document.querySelector('.usage-panel figure[data-trend="rows_examined rows_written"]')?.getAttribute('data-samples') ?? 0) >= 2)
  t.ok(Number(await page.getAttribute('.usage-panel figure[data-trend="rows_examined rows_written"]', 'data-samples')) >= 1, 'the rows chart has samples')

  // Setting a limit: a write-mode button.
  const set = page.locator('.limit-form button:has-text("Set limit")')
  if (await page.isChecked('#write-mode')) await page.click('label.switch')
  t.ok(await set.isDisabled(), 'Set limit is disabled while write mode is off')
  await page.click('label.switch')
  await page.selectOption('.limit-form select.limit-name', 'commits_per_s')
  await page.fill('.limit-form input.limit-value', '7')
  await set.click()
  await page.waitForSelector('.usage-panel tr[data-limit="commits_per_s"]')
  t.match((await call('/api/v1/t/acme/usage')).body, { own_limits: { commits_per_s: 7 }, limits: { commits_per_s: 7 } }, 'the usage route shows the limit set')
  t.match(await page.textContent('.usage-panel tr[data-limit="commits_per_s"]'), /7.*the tenant's own/, 'and the page\'s limits table')
  t.comment(`usage: ${await screenshot(page, 'tenant-usage')}`)

  // A value the server refuses: its sentence, and nothing changed.
  await page.fill('.limit-form input.limit-value', '0')
  await set.click()
  await page.waitForSelector('.limit-message .callout')
  t.match(await page.textContent('.limit-message'), /limit commits_per_s must be a whole number from 1 to .* \(400 bad_request\)/, 'the server\'s refusal in its words')
  t.equal((await call('/api/v1/t/acme/usage')).body.own_limits.commits_per_s, 7, 'the limit kept')

  await page.click('.limit-form button:has-text("Clear")')
  await page.waitForSelector('.usage-panel tr[data-limit="commits_per_s"]', { state: 'detached' })
  t.same((await call('/api/v1/t/acme/usage')).body.own_limits, {}, 'cleared: back to the server\'s default (none)')
  t.same(pageErrors, [], 'no script error on the page')
})
