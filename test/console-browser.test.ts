// The operator console in a real headless Chromium (docs/operations.md,
// "The operator console"): against a real server (real engine, real database in a temp
// dir), the test enters the token, runs a query and sees rows with the plan hint, sees
// a diagnostic with line and column, switches write mode on and creates, forks and
// deletes tenants, sees a live tail event after an insert (and pause/resume losing
// nothing), views a diff, drops snapshots (refused without write mode, a stale one
// answered with the 404's sentence), sees compact's whole message, sees the page file's
// slots as /stats reports them, is asked for the token again after a 401, sees
// corruption shown loudly, and uses the console from another origin (its tail saying
// why it reconnects while the server is down, and live again once it is back); and a tenant-token
// session: a token issued from the console with the service token, the console showing
// only what it opens, a write refused, its tail ended by a revocation, an admin token's
// operations and fork, a token revoked from the console. It saves a
// screenshot of each page into .tap/console-screenshots/ (printed below).
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import type { Page } from 'playwright-core'
import t, { type Test } from 'tap'
import { Database } from '../src/database/index.js'
import { buildServer } from '../src/http/index.js'
import { package_root } from '../src/package-root.js'
import { buildConsole, launchBrowser, newPage, screenshot, screenshot_dir } from './helpers/browser.js'
import { startStaticServer } from './helpers/browser-static-server.js'
import { flipByteInLeaf } from './helpers/damage-page.js'
import { openDatabase } from './helpers/database.js'
import { api, startServer } from './helpers/http-server.js'
import { hang_guard_ms, pollUntil } from './helpers/poll.js'
import { tempDir } from './helpers/temp-dir.js'
import { internalsOf } from '../src/database/internals.js'

const token = 'console-browser-token-0123456789'
const schema = readFileSync(join(package_root, 'examples', 'schema.eel'), 'utf8')

/** A server over the example schema with a few users, a snapshot `before`, and changes after it. */
async function exampleServer(t: Test, consoleDir: string, consoleOrigins: string[] = []) {
  const { db } = await openDatabase(t, schema)
  const server = await startServer(t, { token, db, consoleDir, consoleOrigins })
  const call = api(server.origin, token)
  const query = async (text: string) => {
    const res = await call('/api/v1/t/default/query', { json: { query: text } })
    if (res.status !== 200) throw new Error(`${text}: ${JSON.stringify(res.body)}`)
    return res.body
  }
  await query('insert users [{id: 1, email: "ada@example.com", name: "Ada", age: 36}, {id: 2, email: "bo@example.com", name: "Bo", age: 28}, {id: 3, email: "cy@example.com", name: "Cy", age: 41, status: "inactive"}]')
  await query('insert orders [{id: 1, user: 1, amount: 12.5}, {id: 2, user: 1, amount: 80}, {id: 3, user: 2, amount: 7.25, status: "paid"}]')
  await call('/api/v1/t/default/ops', { json: { op: 'snapshot', name: 'default', target: 'before' } })
  await query('users | where id == 2 | update {age: 29, status: "away"}')
  await query('insert users {id: 4, email: "di@example.com", name: "Di", age: 45}')
  await query('users | where id == 3 | delete')
  return { ...server, query }
}

/** Types `text` into the CodeMirror editor, replacing what is there. */
async function typeQuery(page: Page, text: string): Promise<void> {
  await page.locator('.cm-content').click()
  await page.keyboard.press('Control+A')
  await page.keyboard.insertText(text)
}

async function dismissToasts(page: Page): Promise<void> {
  while (await page.locator('.toast-close').count() > 0) await page.locator('.toast-close').first().click()
}

const grouped = new Intl.NumberFormat('en-US')
const slot_states = ['live', 'free', 'pending', 'releasing'] as const

interface RenderedPageFile {
  title: string | null
  tip: string | null
  parts: Record<string, string | null>
}

/** The page file panel's figures as the page shows them, read at one moment (it redraws every 2 s). */
function renderedPageFile(page: Page): Promise<RenderedPageFile> {
  return page.evaluate((states) => {
    const panel = document.querySelector('.page-file')
    return {
      title: panel?.querySelector('[data-bytes]')?.getAttribute('title') ?? null,
      tip: panel?.querySelectorAll('dd')[1]?.textContent ?? null,
      parts: Object.fromEntries(states.map((k) => [k, panel?.querySelector(`.legend-item[data-part="${k}"] .legend-value`)?.textContent ?? null])),
    }
  }, [...slot_states])
}

async function connect(page: Page, url: string, secret: string, apiBase?: string): Promise<void> {
  await page.goto(url)
  if (apiBase !== undefined) await page.fill('#api-base', apiBase)
  await page.fill('#token', secret)
  await page.click('form.connect-form button[type=submit]')
}

t.test('the console in headless Chromium', async (t) => {
  const browser = await launchBrowser(t)
  const consoleDir = buildConsole(t)
  const { origin, query, db, app } = await exampleServer(t, consoleDir)
  const call = api(origin, token)
  const page = await newPage(browser)
  const pageErrors: string[] = []
  page.on('pageerror', (error) => pageErrors.push(error.message))
  t.comment(`screenshots: ${screenshot_dir}`)

  await t.test('a wrong token is refused with a clear message', async (t) => {
    await connect(page, `${origin}/console/`, 'not-the-token')
    await page.waitForSelector('.connect-message.visible')
    t.match(await page.textContent('.connect-message'), /refused this token \(401 unauthorized\)/)
    t.comment(`connect: ${await screenshot(page, 'connect')}`)
  })

  await t.test('overview: health detail, fsync chart, WAL, recovery', async (t) => {
    await page.fill('#token', token)
    await page.click('form.connect-form button[type=submit]')
    await page.waitForSelector('.page[data-loaded] svg.chart rect.bar', { state: 'attached' })
    t.equal(await page.evaluate(() => sessionStorage.getItem('tenantdb.console.token')), token, 'the token is kept in sessionStorage')
    const text = await page.textContent('main')
    t.match(text, /Corruption/)
    t.match(text, /Current LSN \(tip\)/)
    t.match(text, /Checkpoint LSN/)
    t.match(text, /Frames replayed at open/)
    t.match(text, /Syncs this session/)
    t.notOk(await page.isVisible('.alarm'), 'no corruption alarm on a clean directory')
    t.comment(`overview: ${await screenshot(page, 'overview')}`)
  })

  await t.test('query: rows with the plan hint; a bad query shows line and column', async (t) => {
    await page.click('a.nav-link[href="#/query"]')
    await page.waitForSelector('.cm-content')
    t.ok(await page.locator('.cm-content .tok-keyword, .cm-content span').count() > 0, 'the editor highlights')
    await typeQuery(page, 'users | where email == $email | select name, email, age')
    await page.fill('#params', '{"email": "ada@example.com"}')
    await page.locator('.cm-content').click()
    await page.keyboard.press('Control+Enter')
    await page.waitForSelector('.result table.results')
    t.match(await page.textContent('.result table.results'), /Ada/)
    t.match(await page.textContent('.result .plan'), /index email on users/)

    await typeQuery(page, 'users | where age > 30 | sort age desc')
    await page.click('button:has-text("Run")')
    await page.waitForSelector('.plan[data-access=scan]')
    const rows = await page.locator('.result table.results tbody tr').count()
    t.equal(rows, 2, 'Ada and Di are over 30 at the head')
    t.match(await page.textContent('.result .plan'), /full scan of users/)
    t.comment(`query: ${await screenshot(page, 'query')}`)

    await page.selectOption('#snapshot-pin', 'before')
    await page.click('button:has-text("Run")')
    await page.waitForFunction(() => document.querySelectorAll('.result table.results tbody tr').length === 2 && document.querySelector('.result')?.textContent?.includes('Cy') === true)
    t.pass('pinned to snapshot before, Cy (deleted since) is back')
    await page.selectOption('#snapshot-pin', '')

    await typeQuery(page, 'users | where age = 3')
    await page.keyboard.press('Control+Enter')
    await page.waitForSelector('.problem[data-line="1"][data-column="19"]')
    const problem = await page.textContent('.problem')
    t.match(problem, /Line 1, column 19/)
    t.match(problem, /unexpected '='/)
    t.ok(await page.isVisible('.cm-lintRange-error'), 'the error is marked inline in the editor')
    t.match(await page.textContent('.result-panel'), /syntax_error/)
    t.comment(`query with a diagnostic: ${await screenshot(page, 'query-diagnostic')}`)
  })

  await t.test('tenants: write mode, create, fork, delete with confirmation', async (t) => {
    await page.click('a.nav-link[href="#/tenants"]')
    await page.waitForSelector('tr[data-tenant="default"]')
    const create = page.locator('button:has-text("Create tenant")')
    t.ok(await create.isDisabled(), 'operations are disabled until write mode is on')
    await page.click('label.switch')
    t.ok(await create.isEnabled(), 'write mode enables them')

    await create.click()
    await page.fill('#dialog-field-name', 'acme')
    await page.click('dialog.modal button[type=submit]')
    await page.waitForSelector('tr[data-tenant="acme"]')
    t.match(await page.textContent('.toast.ok'), /created tenant acme/)

    await page.click('tr[data-tenant="default"] a')
    await page.waitForSelector('.detail-title:has-text("default")')
    await page.click('.detail-head button:has-text("Fork…")')
    await page.fill('#dialog-field-target', 'staging')
    await page.click('dialog.modal button[type=submit]')
    await page.waitForSelector('tr[data-tenant="staging"]')
    t.match(await page.textContent('tr[data-tenant="staging"]'), /default/, 'the fork names its parent')

    await page.click('tr[data-tenant="acme"] a')
    await page.waitForSelector('.detail-title:has-text("acme")')
    await page.click('.detail-head button:has-text("Delete…")')
    await page.click('dialog.modal button:has-text("Cancel")')
    t.ok(await page.isVisible('tr[data-tenant="acme"]'), 'cancel deletes nothing')
    await page.click('.detail-head button:has-text("Delete…")')
    await page.fill('#dialog-field-confirm', 'acme')
    await page.click('dialog.modal button[type=submit]')
    await page.waitForSelector('tr[data-tenant="acme"]', { state: 'detached' })
    t.pass('acme deleted after confirmation')

    await page.click('tr[data-tenant="default"] a')
    await page.waitForSelector('.detail-title:has-text("default")')
    while (await page.locator('.toast-close').count() > 0) await page.locator('.toast-close').first().click()
    t.match(await page.textContent('.tenant-detail'), /before/, 'the snapshot is listed')
    t.comment(`tenants: ${await screenshot(page, 'tenants')}`)
  })

  await t.test('tail: a live event after an insert; pause and resume lose nothing', async (t) => {
    await page.click('a.nav-link[href="#/tail"]')
    await page.waitForSelector('.tail-status[data-state="live"]')
    await query('insert users {id: 5, email: "eve@example.com", name: "Eve", age: 52}')
    await page.waitForSelector('.tail-table tr:has-text("eve@example.com")')
    t.pass('the insert appeared live')

    await page.click('button:has-text("Pause")')
    await page.waitForSelector('.tail-status[data-state="paused"]')
    // Pausing closes the tail's socket: once the server has no tail left, nothing can
    // reach the page, so the commit below is made while it is truly paused.
    await pollUntil(() => app.websocketServer.clients.size === 0, 'the paused tail\'s socket to close on the server')
    await query('users | where id == 5 | update {age: 53}')
    t.equal(await page.locator('.tail-table tr:has-text("update")').count(), 0, 'nothing arrives while paused')
    await page.click('button:has-text("Resume")')
    await page.waitForSelector('.tail-table tr:has-text("update")')
    t.pass('resume delivers what was committed while paused')
    await query('insert orders {id: 4, user: 5, amount: 99.9}')
    await page.waitForSelector('.tail-table tr:has-text("orders")')
    t.comment(`tail: ${await screenshot(page, 'tail')}`)
  })

  await t.test('diff: added, removed and changed rows between a snapshot and the head', async (t) => {
    await page.click('a.nav-link[href="#/diff"]')
    await page.waitForSelector('#diff-from option[value="before"]', { state: 'attached' })
    // The fork above kept its fork point as a newer snapshot (fork-staging): compare from `before`.
    await page.selectOption('#diff-from', 'before')
    await page.click('button:has-text("Compare")')
    await page.waitForSelector('.diff-collection')
    const text = await page.textContent('.diff-output')
    t.match(text, /Added/)
    t.match(text, /di@example\.com/, 'Di was added')
    t.match(text, /cy@example\.com/, 'Cy was removed')
    t.match(await page.textContent('.changed-table'), /age/, 'Bo\'s age changed')
    t.match(await page.textContent('.changed-table'), /away/)
    t.comment(`diff: ${await screenshot(page, 'diff')}`)
  })

  await t.test('snapshots: drop needs write mode and the name typed; a stale row shows the 404', async (t) => {
    for (const target of ['nightly', 'stale']) {
      t.equal((await call('/api/v1/t/default/ops', { json: { op: 'snapshot', name: 'default', target } })).status, 200, `snapshot ${target} taken`)
    }
    await page.click('a.nav-link[href="#/tenants"]')
    await page.waitForSelector('.detail-title:has-text("default")')
    await page.waitForSelector('tr[data-snapshot="stale"]')
    await dismissToasts(page)
    if (await page.isChecked('#write-mode')) await page.click('label.switch')
    const drop = page.locator('tr[data-snapshot="nightly"] button:has-text("Drop…")')
    t.ok(await drop.isDisabled(), 'Drop is disabled while write mode is off')
    t.match(await drop.getAttribute('title'), /Switch on write mode/)
    await page.click('label.switch')
    t.ok(await drop.isEnabled(), 'write mode enables it')

    await drop.click()
    await page.waitForSelector('dialog.modal[open]')
    t.match(await page.textContent('dialog.modal'), /default@nightly/, 'the dialog names the snapshot')
    await page.fill('#dialog-field-confirm', 'nightl')
    await page.click('dialog.modal button[type=submit]')
    t.ok(await page.isVisible('dialog.modal'), 'a name typed wrong drops nothing')
    await page.fill('#dialog-field-confirm', 'nightly')
    t.comment(`snapshot drop dialog: ${await screenshot(page, 'snapshot-drop-dialog')}`)
    await page.click('dialog.modal button[type=submit]')
    await page.waitForSelector('tr[data-snapshot="nightly"]', { state: 'detached' })
    t.equal(await page.textContent('.toast.ok .toast-text'), 'dropped snapshot nightly of default', 'the server\'s message')
    const names = (await call('/api/v1/t/default/snapshots')).body.snapshots.map((s: { name: string }) => s.name)
    t.notOk(names.includes('nightly'), 'the server no longer lists it')
    t.ok(names.includes('stale') && names.includes('before'), 'the other snapshots stay')

    // Another client drops `stale` while the console still lists it.
    t.equal((await call('/api/v1/t/default/ops', { json: { op: 'delete', name: 'default@stale' } })).status, 200)
    const again = await call('/api/v1/t/default/ops', { json: { op: 'delete', name: 'default@stale' } })
    t.equal(again.status, 404)
    t.equal(again.body.code, 'unknown_snapshot')
    await dismissToasts(page)
    await page.click('tr[data-snapshot="stale"] button:has-text("Drop…")')
    await page.fill('#dialog-field-confirm', 'stale')
    await page.click('dialog.modal button[type=submit]')
    await page.waitForSelector('.toast.error')
    t.equal(await page.textContent('.toast.error .toast-text'), `drop failed: ${again.body.error} (404 unknown_snapshot)`, 'the 404\'s sentence')
    await page.waitForSelector('tr[data-snapshot="stale"]', { state: 'detached' })
    t.pass('the list is refreshed after the refusal')
    t.comment(`snapshot drop refused: ${await screenshot(page, 'snapshot-drop-refused')}`)
    await dismissToasts(page)
  })

  await t.test('compact: the toast shows the whole message, the page file\'s sizes included', async (t) => {
    await page.click('.detail-head button:has-text("Compact…")')
    await page.click('dialog.modal button[type=submit]')
    await page.waitForSelector('.toast.ok')
    const message = await page.textContent('.toast.ok .toast-text') ?? ''
    const sizes = /^compacted: \d+ collections?, \d+ rows?, \d+ pages? in \d+ ms; page file (\d+) → (\d+) bytes$/.exec(message)
    t.ok(sizes, `the whole message: ${message}`)
    const stats = (await call('/api/v1/stats')).body
    t.equal(Number(sizes?.[2]), stats.pages.file_bytes, 'the size after is the page file\'s now')
    t.comment(`compact: ${await screenshot(page, 'compact-toast')}`)
    await dismissToasts(page)
  })

  await t.test('overview: the page file panel shows /stats\' pages', async (t) => {
    await page.click('a.nav-link[href="#/overview"]')
    await page.waitForSelector('.page[data-loaded] .page-file')
    // A read in flight over the version before some writes keeps the slots they replace
    // pending (docs/architecture.md, "Free space"), so the panel has more than live slots.
    await internalsOf(db).engine.checkpoint()
    const reader = internalsOf(db).engine.lease()
    t.teardown(() => internalsOf(db).engine.unlease(reader))
    for (let id = 100; id < 160; id += 1) await query(`insert users {id: ${id}, email: "u${id}@example.com", name: "${'n'.repeat(200)}"}`)
    await internalsOf(db).engine.checkpoint()
    const before = (await call('/api/v1/stats')).body.pages
    t.ok(before.pending > 0, `a reader of an older version holds slots back: ${JSON.stringify(before)}`)
    // The panel shows what the server said at its last refresh: poll until that was an idle moment.
    let shown: RenderedPageFile | null = null
    let expected: RenderedPageFile | null = null
    const deadline = Date.now() + hang_guard_ms
    while (Date.now() < deadline) {
      const stats = (await call('/api/v1/stats')).body
      expected = {
        title: `${grouped.format(stats.pages.file_bytes)} bytes`,
        tip: grouped.format(stats.page_count),
        parts: Object.fromEntries(slot_states.map((k) => [k, grouped.format(stats.pages[k])])),
      }
      shown = await renderedPageFile(page)
      if (JSON.stringify(shown) === JSON.stringify(expected)) break
      await page.waitForTimeout(250)
    }
    t.same(shown, expected, 'file size, allocator tip and every state\'s count match /stats')

    const stats = (await call('/api/v1/stats')).body
    const size = await page.textContent('.page-file [data-bytes]') ?? ''
    const human = /^([\d.]+) (B|KiB|MiB|GiB)$/.exec(size)
    t.ok(human, `the size in binary units: ${size}`)
    const scaled = Number(human?.[1]) * 1024 ** ['B', 'KiB', 'MiB', 'GiB'].indexOf(human?.[2] ?? '')
    t.ok(Math.abs(scaled - stats.pages.file_bytes) <= 0.05 * 1024 ** Math.max(0, ['B', 'KiB', 'MiB', 'GiB'].indexOf(human?.[2] ?? '')), 'and close to the exact size')

    // The bar: one segment per non-empty state, as wide as its share.
    const total = slot_states.reduce((sum, k) => sum + stats.pages[k], 0)
    const widths = await page.evaluate(() => {
      const bar = document.querySelector('.page-file .stacked-bar') as HTMLElement
      const inner = bar.clientWidth - 4 // its padding
      return Object.fromEntries([...bar.querySelectorAll<HTMLElement>('.segment')].map((s) => [s.dataset.part, s.getBoundingClientRect().width / inner]))
    })
    t.same(Object.keys(widths).sort(), slot_states.filter((k) => stats.pages[k] > 0).sort(), 'a segment for each state with slots')
    for (const k of slot_states) {
      if (stats.pages[k] / total < 0.1) continue
      t.ok(Math.abs((widths[k] ?? 0) - stats.pages[k] / total) < 0.03, `${k}: ${widths[k]} of the bar for ${stats.pages[k]} of ${total} slots`)
    }
    t.match(await page.textContent('.page-file-help'), /Free slots are reused by the next checkpoints; pending ones wait/)
    t.comment(`overview with the page file: ${await screenshot(page, 'overview-page-file')}`)
  })

  await t.test('a token the server no longer accepts brings back the token form, saying why', async (t) => {
    await page.evaluate(() => sessionStorage.setItem('tenantdb.console.token', 'stale-token'))
    await page.click('a.nav-link[href="#/overview"]')
    await page.waitForSelector('.connect-message.visible')
    t.match(await page.textContent('.connect-message'), /refused the token \(401 unauthorized\)/)
    t.equal(await page.evaluate(() => sessionStorage.getItem('tenantdb.console.token')), null, 'the stale token is forgotten')
  })

  t.same(pageErrors, [], 'no uncaught error in the page')
})

t.test('corruption is shown loudly with the remedy', async (t) => {
  const browser = await launchBrowser(t)
  const consoleDir = buildConsole(t)
  const dir = tempDir(t)
  const { db: first, schemaFile } = await openDatabase(t, 'collection notes {\n  id: int primary,\n  text: string,\n}\n', dir)
  const rows = Array.from({ length: 300 }, (_, i) => `{id: ${i}, text: "note-${String(i).padStart(4, '0')}"}`)
  await first.tenant('default').query(`insert notes [${rows.join(', ')}]`)
  await first.close()
  flipByteInLeaf(join(dir, 'db', 'pages'), 'note-0150')
  const db = await Database.open(join(dir, 'db'), { schema: [schemaFile] })
  t.teardown(() => db.close())
  const { origin } = await startServer(t, { token, db, consoleDir })
  await api(origin, token)('/api/v1/t/default/query', { json: { query: 'notes | where text == "note-0150"' } })

  const page = await newPage(browser)
  await connect(page, `${origin}/console/`, token)
  await page.waitForSelector('.alarm')
  t.match(await page.textContent('.alarm'), /restore from a known-good copy of the database directory or to recreate it/)
  t.match(await page.textContent('.panel.danger'), /page:/, 'the report names the page')
  t.comment(`overview with corruption: ${await screenshot(page, 'overview-corruption')}`)
})

t.test('from another origin: refused unless listed with --console-origin, then working', async (t) => {
  const browser = await launchBrowser(t)
  const consoleDir = buildConsole(t)
  const staticOrigin = await startStaticServer(t, consoleDir)
  const unlisted = await startServer(t, { token, consoleDir })
  const page = await newPage(browser)

  await connect(page, `${staticOrigin}/console/`, token, unlisted.origin)
  await page.waitForSelector('.connect-message.visible')
  t.match(await page.textContent('.connect-message'), new RegExp(`--console-origin ${staticOrigin.replace(/[.]/g, '\\.')}`), 'says how to allow this origin')

  const { origin, app, db, port } = await exampleServer(t, consoleDir, [staticOrigin])
  await page.fill('#api-base', origin)
  await page.click('form.connect-form button[type=submit]')
  await page.waitForSelector('.page[data-loaded] svg.chart')
  t.match(await page.textContent('.connection'), new URL(origin).host, 'the top bar names the API it talks to')
  await page.click('a.nav-link[href="#/query"]')
  await typeQuery(page, 'orders | where user == 1')
  await page.keyboard.press('Control+Enter')
  await page.waitForSelector('.result table.results')
  t.equal(await page.locator('.result table.results tbody tr').count(), 2, 'a cross-origin query (with a preflight) answers')
  await page.click('a.nav-link[href="#/tail"]')
  await page.waitForSelector('.tail-status[data-state="live"]')
  await api(origin, token)('/api/v1/t/default/query', { json: { query: 'insert orders {id: 9, user: 2, amount: 1}' } })
  await page.waitForSelector('.tail-table tr:has-text("orders")')
  t.pass('the tail WebSocket works cross-origin too')

  // The server goes away: the tail says why and waits; started again on the same port,
  // the tail is live again by itself and shows what is committed then.
  await app.close()
  // Read while it says so: its retry may begin ("connecting") between two calls.
  const retrying = await page.waitForFunction(() => {
    const status = document.querySelector<HTMLElement>('.tail-status')
    return status?.dataset.state === 'retrying' ? status.textContent : false
  })
  t.match(await retrying.jsonValue(), /reconnecting · (the server is shutting down|no answer from).*; retrying in/, 'the reason in words')
  t.comment(`tail retrying: ${await screenshot(page, 'tail-retrying')}`)
  const again = await buildServer({ token, db, consoleDir, consoleOrigins: [staticOrigin] })
  await again.listen({ host: '127.0.0.1', port })
  t.teardown(() => again.close())
  await page.waitForSelector('.tail-status[data-state="live"]')
  await api(origin, token)('/api/v1/t/default/query', { json: { query: 'insert orders {id: 10, user: 2, amount: 123.45}' } })
  await page.waitForSelector('.tail-table tr:has-text("123.45")')
  t.pass('live again once the server is back')
})

t.test('a tenant-token session: the console shows only what the token opens; the service token issues and revokes', async (t) => {
  const browser = await launchBrowser(t)
  const consoleDir = buildConsole(t)
  const { origin } = await exampleServer(t, consoleDir)
  const call = api(origin, token)
  t.equal((await call('/api/v1/t/default/ops', { json: { op: 'create', name: 'acme' } })).status, 200)
  t.equal((await call('/api/v1/t/acme/query', { json: { query: 'insert users [{id: 1, email: "ann@acme.example", name: "Ann"}, {id: 2, email: "bob@acme.example", name: "Bob"}]' } })).status, 200)
  const page = await newPage(browser)
  const pageErrors: string[] = []
  page.on('pageerror', (error) => pageErrors.push(error.message))

  // The service token: acme's tokens panel, issuing a read token in write mode.
  await connect(page, `${origin}/console/`, token)
  await page.waitForSelector('.page[data-loaded]')
  await page.click('a.nav-link[href="#/tenants"]')
  await page.click('tr[data-tenant="acme"] a')
  await page.waitForSelector('.detail-title:has-text("acme")')
  await page.waitForSelector('.panel.tokens')
  t.match(await page.textContent('.panel.tokens'), /No token opens this tenant/)
  const issueButton = page.locator('.panel.tokens button:has-text("Issue token…")')
  t.ok(await issueButton.isDisabled(), 'issuing needs write mode')
  await page.click('label.switch')
  await issueButton.click()
  await page.selectOption('#dialog-field-scope', 'read')
  await page.fill('#dialog-field-name', 'browser app')
  await page.click('dialog.modal button[type=submit]')
  await page.waitForSelector('#issued-token')
  const readToken = await page.inputValue('#issued-token')
  t.match(readToken, /^tdb_[A-Za-z0-9_-]{43}$/, 'the token is shown once')
  t.comment(`token issued: ${await screenshot(page, 'token-issued')}`)
  await page.click('dialog.modal button[type=submit]')
  await page.waitForSelector('.panel.tokens tr[data-token]')
  t.match(await page.textContent('.panel.tokens'), /browser app/)
  t.notOk((await page.textContent('.panel.tokens'))?.includes(readToken), 'the list never shows the token')
  const [listed] = (await call('/api/v1/t/acme/tokens')).body.tokens as Array<{ id: string; scope: string; name: string }>
  t.match(listed, { scope: 'read', name: 'browser app' }, 'the server issued what the dialog asked for')
  t.comment(`tokens: ${await screenshot(page, 'tenant-tokens')}`)

  // The read token: its tenant only, no server-wide page, no operations, no tokens.
  await page.click('button:has-text("Sign out")')
  await page.fill('#token', readToken)
  await page.click('form.connect-form button[type=submit]')
  await page.waitForSelector('.page tr[data-tenant="acme"]')
  t.equal(await page.evaluate(() => window.location.hash), '#/tenants', 'a tenant token starts on its tenants')
  t.same(await page.locator('.tenant-list tr[data-tenant]').evaluateAll((rows) => rows.map((r) => (r as HTMLElement).dataset.tenant)), ['acme'], 'only the tenant it opens')
  t.ok(await page.locator('a.nav-link[href="#/overview"]').isHidden(), 'no Overview: it is server-wide')
  t.match(await page.textContent('.credential'), /read token · acme/)
  t.equal(await page.locator('button:has-text("Create tenant")').count(), 0, 'no create')
  await page.waitForSelector('.detail-title:has-text("acme")')
  t.equal(await page.locator('.detail-head .actions button').count(), 0, 'no operation for a read token')
  t.equal(await page.locator('.panel.tokens').count(), 0, 'no tokens panel')
  t.match(await page.textContent('.access-note'), /read token/)
  t.match(await page.textContent('.tenant-detail'), /users/, 'its collections are shown')
  t.comment(`tenant-token tenants: ${await screenshot(page, 'tenant-token-tenants')}`)
  await page.evaluate(() => { window.location.hash = '#/overview' })
  await page.waitForFunction(() => window.location.hash === '#/tenants')
  t.pass('the Overview address leads back to its tenants')

  await page.click('a.nav-link[href="#/query"]')
  await page.waitForSelector('.cm-content')
  t.same(await page.locator('#tenant option').evaluateAll((options) => options.map((o) => (o as HTMLOptionElement).value)), ['acme'], 'the query page offers its tenant only')
  await typeQuery(page, 'users | sort name | select name')
  await page.keyboard.press('Control+Enter')
  await page.waitForSelector('.result table.results')
  t.match(await page.textContent('.result table.results'), /Ann[\s\S]*Bob/)
  await typeQuery(page, 'insert users {id: 3, email: "cy@acme.example", name: "Cy"}')
  await page.keyboard.press('Control+Enter')
  await page.waitForFunction(() => document.querySelector('.result-panel')?.textContent?.includes('forbidden') === true)
  t.match(await page.textContent('.result-panel'), /this statement writes, and the token is a read token/)
  t.same((await call('/api/v1/t/acme/query', { json: { query: 'users | count' } })).body.rows, [[2]], 'nothing was written')
  t.comment(`tenant-token query refused: ${await screenshot(page, 'tenant-token-query')}`)

  // Its tail is live until the service token revokes it: then the console asks for a token again.
  await page.click('a.nav-link[href="#/tail"]')
  await page.waitForSelector('.tail-status[data-state="live"]')
  await call('/api/v1/t/acme/query', { json: { query: 'insert users {id: 4, email: "di@acme.example", name: "Di"}' } })
  await page.waitForSelector('.tail-table tr:has-text("di@acme.example")')
  t.equal((await call(`/api/v1/t/acme/tokens/${listed?.id ?? ''}`, { method: 'DELETE' })).status, 200)
  await page.waitForSelector('.connect-message.visible')
  t.match(await page.textContent('.connect-message'), /revoked or has expired.*\(4401\)/)
  t.equal(await page.evaluate(() => sessionStorage.getItem('tenantdb.console.token')), null, 'the revoked token is forgotten')
  t.comment(`tail revoked: ${await screenshot(page, 'tenant-token-revoked')}`)

  // An admin token: its operations but no delete; a fork it makes is listed at once.
  const adminToken = (await call('/api/v1/t/acme/tokens', { json: { scope: 'admin', name: 'ops' } })).body as { token: string; id: string }
  await page.fill('#token', adminToken.token)
  await page.click('form.connect-form button[type=submit]')
  await page.waitForSelector('.detail-title:has-text("acme")')
  const actions = await page.locator('.detail-head .actions button').allTextContents()
  t.same(actions, ['Snapshot…', 'Fork…', 'Suspend…', 'Compact…'], 'an admin token\'s operations, no delete')
  await page.click('label.switch')
  await page.click('.detail-head button:has-text("Fork…")')
  await page.fill('#dialog-field-target', 'acme-staging')
  await page.click('dialog.modal button[type=submit]')
  await page.waitForSelector('.tenant-list tr[data-tenant="acme-staging"]')
  t.same(await page.locator('.tenant-list tr[data-tenant]').evaluateAll((rows) => rows.map((r) => (r as HTMLElement).dataset.tenant)), ['acme', 'acme-staging'], 'the fork is opened by the token that made it')
  t.match(await page.textContent('.credential'), /admin token · 2 tenants/)
  t.comment(`admin token: ${await screenshot(page, 'tenant-token-admin')}`)

  // The service token revokes it from the console.
  await page.click('button:has-text("Sign out")')
  await page.fill('#token', token)
  await page.click('form.connect-form button[type=submit]')
  await page.waitForSelector('.page[data-loaded]')
  await page.click('a.nav-link[href="#/tenants"]')
  await page.click('tr[data-tenant="acme"] a')
  await page.waitForSelector(`.panel.tokens tr[data-token="${adminToken.id}"]`)
  await dismissToasts(page)
  await page.click('label.switch')
  await page.click(`.panel.tokens tr[data-token="${adminToken.id}"] button:has-text("Revoke…")`)
  await page.click('dialog.modal button[type=submit]')
  await page.waitForSelector(`.panel.tokens tr[data-token="${adminToken.id}"]`, { state: 'detached' })
  t.equal(await page.textContent('.toast.ok .toast-text'), `revoked token ${adminToken.id} of acme`)
  t.equal((await api(origin, adminToken.token)('/api/v1/t/acme/schema')).status, 401, 'the token is refused from then on')
  t.same(pageErrors, [], 'no uncaught error in the page')
})
