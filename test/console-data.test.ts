// The operator console as a daily tool, in a real headless Chromium against a real
// server (docs/operations.md, "The operator console"): browsing and paging 10 000 rows
// by primary key, a filter with a bad then a good expression, editing rows in write
// mode (refused without it; a conflict shown with nothing lost; the server's messages),
// the schema view, the trend charts moving while a writer runs, query history, saved
// queries and export, restoring a snapshot after a confirmation naming what is lost, a
// fork compared with its parent at the fork point, tenant names explained, and links to
// things that do not exist. Screenshots go to .tap/console-screenshots/.
import { readFileSync } from 'node:fs'
import type { Page } from 'playwright-core'
import t from 'tap'
import { buildConsole, launchBrowser, newPage, screenshot, screenshot_dir } from './helpers/browser.js'
import { api, openExampleDatabase, startServer } from './helpers/http-server.js'
import { hang_guard_ms } from './helpers/poll.js'

const token = 'console-data-token-0123456789'
const rows_total = 10_000

async function typeInto(page: Page, selector: string, text: string): Promise<void> {
  await page.locator(selector).click()
  await page.keyboard.press('Control+A')
  await page.keyboard.press('Delete')
  if (text !== '') await page.keyboard.insertText(text)
}

async function dismissToasts(page: Page): Promise<void> {
  while (await page.locator('.toast-close').count() > 0) await page.locator('.toast-close').first().click()
}

/** The primary keys of the rows shown, in order. */
function shownKeys(page: Page): Promise<number[]> {
  return page.$$eval('table.data-rows tbody tr', (rows) => rows.map((r) => Number((r as HTMLElement).dataset.key)))
}

/** Waits for the data page to show a page newer than `since` (data-loaded is the time it drew). */
async function pageDrawnAfter(page: Page, since: string | null): Promise<string> {
  await page.waitForFunction((before) => {
    const now = document.querySelector('.data-page')?.getAttribute('data-loaded') ?? null
    return now !== null && now !== before
  }, since)
  return await page.getAttribute('.data-page', 'data-loaded') ?? ''
}

t.test('the console as a daily tool', async (t) => {
  const browser = await launchBrowser(t)
  const consoleDir = buildConsole(t)
  const db = await openExampleDatabase(t)
  const tenant = db.tenant('default')
  for (let start = 1; start <= rows_total; start += 2000) {
    const rows = Array.from({ length: 2000 }, (_, i) => {
      const id = start + i
      return { id, email: `u${id}@example.com`, name: `User ${id}`, age: id % 90, ...(id % 7 === 0 ? { tags: ['seven', `t${id}`] } : {}) }
    })
    await tenant.query('insert users $rows', { rows })
  }
  await db.ops({ op: 'snapshot', name: 'default', target: 'before' })
  const { origin } = await startServer(t, { token, db, consoleDir })
  const call = api(origin, token)
  const page = await newPage(browser)
  const pageErrors: string[] = []
  page.on('pageerror', (error) => pageErrors.push(error.message))
  t.comment(`screenshots: ${screenshot_dir}`)

  await page.goto(`${origin}/console/`)
  await page.fill('#token', token)
  await page.click('form.connect-form button[type=submit]')
  await page.waitForSelector('.page[data-loaded]')

  await t.test('data: 10 000 rows paged by primary key, typed cells, keyset plans', async (t) => {
    await page.click('a.nav-link[href="#/tenants"]')
    await page.click('a.collection-link:has-text("users")')
    let drawn = await pageDrawnAfter(page, null)
    t.same(await shownKeys(page), Array.from({ length: 50 }, (_, i) => i + 1), 'the first 50 rows in primary-key order')
    t.match(await page.textContent('.rows-panel .panel-actions'), /rows 1–50/)
    const cell = page.locator('table.data-rows tbody tr[data-key="7"] td.v-list')
    t.match(await cell.textContent(), /\["seven","t7"\]/, 'a list shown as JSON')
    t.match(await page.getAttribute('table.data-rows tbody tr[data-key="1"] td.v-timestamp', 'title') ?? '', /^\d{4}-\d\d-\d\dT/, 'a timestamp in local time, its exact value in the tooltip')

    t.comment(`data: ${await screenshot(page, 'data')}`)
    await page.selectOption('#data-page-size', '200')
    drawn = await pageDrawnAfter(page, drawn)
    await page.click('button:has-text("Next →")')
    drawn = await pageDrawnAfter(page, drawn)
    t.same(await shownKeys(page), Array.from({ length: 200 }, (_, i) => i + 201), 'page 2: rows 201–400')
    t.equal(await page.getAttribute('.rows-panel .plan', 'data-access'), 'primary', 'the next page is a primary-key range')
    t.match(await page.textContent('.rows-panel .page-query'), /^users \| where id > \$after \| take \$limit$/)
    t.match(await page.textContent('.rows-panel .result-facts'), /201 examined/, 'a page reads its own rows (and one more), not those before it')
    for (let n = 3; n <= rows_total / 200; n += 1) {
      await page.click('button:has-text("Next →")')
      drawn = await pageDrawnAfter(page, drawn)
    }
    const last = await shownKeys(page)
    t.equal(last[0], 9801)
    t.equal(last[last.length - 1], rows_total, 'the last page ends at the last row')
    t.match(await page.textContent('.rows-panel .result-facts'), /200 examined/)
    t.ok(await page.locator('button:has-text("Next →")').isDisabled(), 'no page after the last')
    await page.click('button:has-text("← Previous")')
    drawn = await pageDrawnAfter(page, drawn)
    t.equal((await shownKeys(page))[0], 9601, 'back one page')
    await page.click('button:has-text("First")')
    drawn = await pageDrawnAfter(page, drawn)
    t.equal((await shownKeys(page))[0], 1)
  })

  await t.test('data: a bad filter is shown where it is wrong; a good one narrows the rows', async (t) => {
    let drawn = await page.getAttribute('.data-page', 'data-loaded')
    await typeInto(page, '.filter-editor .cm-content', 'age >')
    await page.waitForSelector('.filter-panel .problem')
    t.match(await page.textContent('.filter-panel .problem'), /while typing/)
    await page.click('.filter-row button:has-text("Apply")')
    await page.waitForSelector('.toast.error')
    t.match(await page.textContent('.toast.error'), /syntax error/, 'not sent')
    await dismissToasts(page)
    t.comment(`data filter, syntax: ${await screenshot(page, 'data-filter-syntax')}`)

    await typeInto(page, '.filter-editor .cm-content', 'nosuch == 1')
    await page.click('.filter-row button:has-text("Apply")')
    await page.waitForSelector('.filter-panel .problem:has-text("from the server")')
    t.match(await page.textContent('.filter-panel .problem'), /unknown_field/, 'the server\'s code')
    t.equal(await page.getAttribute('.filter-panel .problem', 'data-column'), '1', 'at its place in the filter, not in the query around it')
    t.ok(await page.isVisible('.filter-editor .cm-lintRange-error'), 'marked in the filter')
    t.match(await page.textContent('.rows-panel'), /HTTP 400/)
    t.comment(`data filter, server: ${await screenshot(page, 'data-filter-server')}`)

    await typeInto(page, '.filter-editor .cm-content', 'age == 30 and status == "active"')
    await page.keyboard.press('Enter')
    drawn = await pageDrawnAfter(page, drawn)
    const keys = await shownKeys(page)
    t.equal(keys.length, Array.from({ length: rows_total }, (_, i) => i + 1).filter((id) => id % 90 === 30).length, 'every row with age 30, on one page')
    t.ok(keys.every((k) => k % 90 === 30), 'and only those')
    t.equal(await page.locator('.filter-panel .problem').count(), 0, 'no problem left')
    t.comment(`data filtered: ${await screenshot(page, 'data-filtered')}`)
  })

  await t.test('data: edit needs write mode; a change is one query; a conflict keeps what was typed', async (t) => {
    const edit = page.locator('tr[data-key="30"] button:has-text("Edit…")')
    t.ok(await edit.isDisabled(), 'Edit is disabled while write mode is off')
    t.match(await edit.getAttribute('title'), /Switch on write mode/)
    t.ok(await page.locator('button:has-text("Insert row…")').isDisabled(), 'and so is Insert')
    await page.click('label.switch')
    t.ok(await edit.isEnabled(), 'write mode enables it')

    let drawn = await page.getAttribute('.data-page', 'data-loaded')
    await edit.click()
    await page.waitForSelector('dialog.modal[open] .row-form')
    t.ok(await page.locator('#row-field-id').isDisabled(), 'the primary key is fixed')
    t.equal(await page.inputValue('#row-field-name'), 'User 30', 'the form holds the row')
    await page.fill('#row-field-age', 'thirty')
    await page.click('dialog.modal button[type=submit]')
    t.match(await page.textContent('[data-field-error="age"]'), /not a number/, 'checked before sending')
    await page.fill('#row-field-age', '30')
    await page.fill('#row-field-email', 'u31@example.com')
    await page.click('dialog.modal button[type=submit]')
    await page.waitForSelector('.row-form .server-error')
    t.match(await page.textContent('.row-form .server-error'), /constraint_violation/, 'the server\'s code')
    t.match(await page.textContent('.row-form .server-error'), /HTTP 400/)
    t.equal(await page.inputValue('#row-field-email'), 'u31@example.com', 'what was typed stays')
    t.match(await page.textContent('[data-field-error="email"]'), /already holds/, 'the field it names is marked')
    t.comment(`row form refused: ${await screenshot(page, 'row-form-refused')}`)

    await page.fill('#row-field-email', 'u30@example.com')
    await page.fill('#row-field-name', 'Thirty')
    // Another client changes the row while the form is open.
    t.equal((await call('/api/v1/t/default/query', { json: { query: 'users | where id == 30 | update {status: "away"}' } })).status, 200)
    await page.click('dialog.modal button[type=submit]')
    await page.waitForSelector('.row-form .conflict')
    t.match(await page.textContent('.row-form .conflict'), /changed since you opened it/)
    t.match(await page.textContent('.row-form .conflict'), /away/, 'the row as it is now')
    t.equal(await page.inputValue('#row-field-name'), 'Thirty', 'nothing typed is lost')
    t.same((await tenant.query('users | get 30 | select name, status')).rows, [['User 30', 'away']], 'nothing was written')
    t.comment(`row form conflict: ${await screenshot(page, 'row-form-conflict')}`)
    await page.click('.row-form .conflict button')
    await page.click('dialog.modal button[type=submit]')
    await page.waitForSelector('dialog.modal', { state: 'detached' })
    drawn = await pageDrawnAfter(page, drawn)
    t.same((await tenant.query('users | get 30 | select name, status')).rows, [['Thirty', 'away']], 'the change applied to the row as it is now, the other client\'s kept')
    t.equal(await page.locator('tr[data-key="30"]').count(), 0, 'the list is read again: the row is "away" now, so the filter no longer matches it')

    await page.click('button:has-text("Insert row…")')
    await page.fill('#row-field-id', '20000')
    await page.fill('#row-field-email', 'new@example.com')
    await page.fill('#row-field-name', 'New')
    t.match(await page.getAttribute('#row-field-status', 'placeholder'), /default: "active"/)
    await page.click('dialog.modal button[type=submit]')
    await page.waitForSelector('dialog.modal', { state: 'detached' })
    t.same((await tenant.query('users | get 20000 | select name, status, age, tags')).rows, [['New', 'active', null, []]], 'defaults and nulls from the server')

    await page.click('tr[data-key="120"] button:has-text("Delete…")')
    await page.click('dialog.modal button[type=submit]')
    await page.waitForSelector('tr[data-key="120"]', { state: 'detached' })
    t.same((await tenant.query('users | where id == 120 | count')).rows, [[0]], 'deleted')
    await dismissToasts(page)
  })

  await t.test('schema: collections, fields, types, defaults, indexes, named queries, the tenant\'s status', async (t) => {
    await page.click('a.nav-link[href="#/schema"]')
    await page.waitForSelector('.schema-page[data-loaded]')
    const users = page.locator('.schema-collection:has(h2:text-is("users"))')
    t.match(await users.locator('tr[data-field="email"]').textContent(), /string.*unique/)
    t.match(await users.locator('tr[data-field="tags"]').textContent(), /\[string\].*\[\]/)
    t.match(await users.locator('tr[data-field="created"]').textContent(), /timestamp.*now\(\)/)
    t.match(await users.locator('tr[data-field="age"]').textContent(), /yes/, 'optional')
    t.match(await users.locator('tr[data-field="id"]').textContent(), /primary/)
    t.match(await users.locator('li[data-index="status_created"]').textContent(), /status.*created/)
    t.match(await page.textContent('.named-query[data-query="active_users"]'), /active_users\(\$min_age: int = 18\)/)
    t.match(await page.textContent('.schema-status'), /up to date/)
    t.comment(`schema: ${await screenshot(page, 'schema')}`)
  })

  await t.test('overview: the trend charts move while a writer runs', async (t) => {
    await page.click('a.nav-link[href="#/overview"]')
    await page.waitForSelector('.trends-panel[data-samples]')
    let writing = true
    let id = 30_000
    const writer = (async () => {
      while (writing) {
        id += 1
        await call('/api/v1/t/default/query', { json: { query: `insert orders {id: ${id}, user: 1, amount: 2.5}` } })
      }
    })()
    try {
      const label = () => page.getAttribute('figure.trend[data-trend^="commits"]', 'aria-label')
      const samples = () => page.getAttribute('figure.trend[data-trend^="commits"]', 'data-samples').then(Number)
      const before = await samples()
      const deadline = Date.now() + hang_guard_ms
      while (Date.now() < deadline && !((await samples()) >= before + 3 && /commits [1-9]/.test(await label() ?? ''))) await page.waitForTimeout(250)
      t.ok((await samples()) >= before + 3, `new seconds arrived (${before} → ${await samples()})`)
      t.match(await label(), /commits [1-9][\d,]*\/s/, 'commits per second above zero while the writer runs')
      t.equal(await page.locator('.trends-panel canvas').count(), 8, 'eight charts drawn')
      t.comment(`overview with trends: ${await screenshot(page, 'overview-trends')}`)
    } finally {
      writing = false
      await writer
    }
    const trends = (await call('/api/v1/trends')).body
    t.ok(trends.series.commits.some((n: number) => n > 0) && trends.series.memory_reads.some((n: number) => n > 0), 'the route agrees')

    // A hidden tab is not polled; shown again, it refreshes at once.
    const polls: string[] = []
    let pending = 0
    page.on('request', (request) => { if (request.url().includes('/api/v1/')) { polls.push(request.url()); pending += 1 } })
    const settled = (request: { url(): string }) => { if (request.url().includes('/api/v1/')) pending -= 1 }
    page.on('requestfinished', settled)
    page.on('requestfailed', settled)
    const setHidden = (hidden: boolean) => page.evaluate((value) => {
      Object.defineProperty(document, 'hidden', { value, configurable: true })
      document.dispatchEvent(new Event('visibilitychange'))
    }, hidden)
    await setHidden(true)
    // Once a refresh already in flight has settled, nothing more may start: watch for
    // three refresh periods.
    const deadline = Date.now() + hang_guard_ms
    while (pending > 0 && Date.now() < deadline) await page.waitForTimeout(50)
    const before = polls.length
    await page.waitForTimeout(6000)
    t.equal(polls.length, before, 'no request while the tab is hidden')
    const updated = await page.textContent('.updated')
    await setHidden(false)
    await page.waitForFunction((text) => document.querySelector('.updated')?.textContent !== text, updated)
    t.ok(polls.length > before, 'shown again: refreshed at once')
    t.ok(polls.filter((u) => u.includes('/api/v1/trends?after=')).length > 0, 'the trends ask only for the seconds they lack')
  })

  await t.test('query: history, saved queries, completion, export as CSV and JSON', async (t) => {
    await page.click('a.nav-link[href="#/query"]')
    await page.waitForSelector('.cm-content')
    await typeInto(page, '.editor .cm-content', 'users | where age == 30 | select id, name | take 3')
    await page.keyboard.press('Control+Enter')
    await page.waitForSelector('.result table.results')
    await typeInto(page, '.editor .cm-content', 'orders | count')
    await page.keyboard.press('Control+Enter')
    await page.waitForSelector('.result table.results:has-text("count")')
    t.same(await page.$$eval('.history .history-entry', (es) => es.map((e) => e.textContent)), ['orders | count', 'users | where age == 30 | select id, name | take 3'], 'newest first')
    await page.click('.history .history-entry:has-text("age == 30")')
    t.equal(await page.textContent('.editor .cm-content'), 'users | where age == 30 | select id, name | take 3', 'a history entry back in the editor')
    await page.keyboard.press('Control+Enter')
    await page.waitForSelector('.result table.results:has-text("name")')

    const csvDownload = page.waitForEvent('download')
    await page.click('.result-panel button:has-text("CSV")')
    const csv = readFileSync(await (await csvDownload).path(), 'utf8')
    t.equal(csv, 'id,name\r\n30,Thirty\r\n210,User 210\r\n300,User 300\r\n', 'the rows as CSV')
    const jsonDownload = page.waitForEvent('download')
    await page.click('.result-panel button:has-text("JSON")')
    t.same(JSON.parse(readFileSync(await (await jsonDownload).path(), 'utf8')), [{ id: 30, name: 'Thirty' }, { id: 210, name: 'User 210' }, { id: 300, name: 'User 300' }], 'and as JSON')

    await page.click('button:has-text("Save…")')
    await page.fill('#dialog-field-name', 'age thirty')
    await page.click('dialog.modal button[type=submit]')
    await page.waitForSelector('.saved li[data-saved="age thirty"]')
    await page.reload()
    await page.waitForSelector('.saved li[data-saved="age thirty"]')
    t.pass('a saved query outlives a reload')

    await typeInto(page, '.editor .cm-content', 'users | whe')
    await page.keyboard.press('Control+Space')
    await page.waitForSelector('.cm-tooltip-autocomplete')
    t.match(await page.textContent('.cm-tooltip-autocomplete'), /where/, 'stages after |')
    await page.keyboard.press('Enter')
    await page.keyboard.insertText(' ema')
    await page.keyboard.press('Control+Space')
    await page.waitForSelector('.cm-tooltip-autocomplete:has-text("email")')
    t.pass('fields of the collection in an expression')
    t.comment(`query with completion: ${await screenshot(page, 'query-completion')}`)
    await page.keyboard.press('Escape')
    await typeInto(page, '.editor .cm-content', 'ord')
    await page.keyboard.press('Control+Space')
    await page.waitForSelector('.cm-tooltip-autocomplete:has-text("orders")')
    t.pass('collection names at the start')
    await page.keyboard.press('Escape')
  })

  await t.test('restore: write mode, a confirmation naming what is lost, then the snapshot\'s rows', async (t) => {
    // More orders than one diff lists (1 000 rows): the users' changes must still be named.
    const orders = Array.from({ length: 1200 }, (_, i) => ({ id: 100_000 + i, user: 1, amount: 1 }))
    t.equal((await call('/api/v1/t/default/query', { json: { query: 'insert orders $rows', params: { rows: orders } } })).status, 200)
    await page.goto(`${origin}/console/#/tenants/default`)
    await page.waitForSelector('tr[data-snapshot="before"]')
    if (!(await page.isChecked('#write-mode'))) await page.click('label.switch')
    await page.click('tr[data-snapshot="before"] button:has-text("Restore…")')
    await page.waitForSelector('dialog.modal[open]')
    const text = await page.textContent('dialog.modal') ?? ''
    t.match(text, /users: 1 row added, 1 removed, 1 changed/, 'what is lost, per collection, however many changes another collection has')
    t.match(text, /orders: at least 1000 rows added/, 'a collection past the diff\'s limit is counted as a lower bound')
    await page.fill('#dialog-field-confirm', 'defaul')
    await page.click('dialog.modal button[type=submit]')
    t.ok(await page.isVisible('dialog.modal'), 'a name typed wrong restores nothing')
    await page.fill('#dialog-field-confirm', 'default')
    await page.fill('#dialog-field-keep', 'before-restore')
    t.comment(`restore dialog: ${await screenshot(page, 'restore-dialog')}`)
    await page.click('dialog.modal button[type=submit]')
    await page.waitForSelector('.toast.ok:has-text("restored default to snapshot before")')
    t.same((await tenant.query('users | get 30 | select name, status')).rows, [['User 30', 'active']], 'the row is the snapshot\'s again')
    t.same((await tenant.query('orders | count')).rows, [[0]])
    t.same((await tenant.query('users | get 30 | select name', {}, { snapshot: 'before-restore' })).rows, [['Thirty']], 'the head was kept as asked')
    await page.waitForSelector('tr[data-snapshot="before-restore"]')
    await dismissToasts(page)
  })

  await t.test('fork: the fork point is kept and the fork compared with its parent', async (t) => {
    await page.click('.detail-head button:has-text("Fork…")')
    await page.fill('#dialog-field-target', 'Bad Name')
    t.match(await page.textContent('[data-field-error="target"]'), /lower-case letters a–z, digits 0–9, _ and -/, 'the allowed pattern, in words')
    await page.fill('#dialog-field-target', 'staging')
    t.equal(await page.textContent('[data-field-error="target"]'), '')
    await page.click('dialog.modal button[type=submit]')
    await page.waitForSelector('tr[data-tenant="staging"]')
    await db.tenant('staging').query('users | where id == 5 | update {name: "Five"}')
    await page.click('a.fork-diff')
    await page.waitForSelector('.diff-collection')
    t.equal(await page.inputValue('#diff-from'), 'default@fork-staging', 'from the parent at the fork point')
    t.match(await page.textContent('.changed-table'), /Five/)
    t.comment(`fork diff: ${await screenshot(page, 'diff-fork')}`)
    await dismissToasts(page)
  })

  await t.test('links to things that do not exist say so', async (t) => {
    const cases: Array<[string, string, RegExp]> = [
      ['#/tenants/nosuch', 'tenant', /No tenant named nosuch/],
      ['#/diff/default/before/nosuch', 'snapshot', /No snapshot named nosuch/],
      ['#/diff/nosuch', 'tenant', /No tenant named nosuch/],
      ['#/data/default/nosuch', 'collection', /No collection named nosuch/],
      ['#/data/default/users/nosuch', 'snapshot', /No snapshot named nosuch/],
      ['#/schema/nosuch', 'tenant', /No tenant named nosuch/],
      ['#/nosuch', 'page', /No page named nosuch/],
    ]
    for (const [hash, what, text] of cases) {
      await page.goto(`${origin}/console/${hash}`)
      await page.waitForSelector(`.not-found[data-not-found="${what}"]`)
      t.match(await page.textContent('.not-found'), text, hash)
    }
    t.comment(`not found: ${await screenshot(page, 'not-found')}`)
  })

  t.same(pageErrors, [], 'no uncaught error in the page')
})
