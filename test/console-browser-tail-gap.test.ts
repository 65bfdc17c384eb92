// The console's live tail when the WAL's retention overtakes it (console/src/api/
// tail-stream.ts, docs/client.md "The change feed"), in a real headless Chromium
// against a real server whose tail retains almost nothing: paused after an event, the
// tail's place is deleted by retention meanwhile; on resume the page says events are
// gone before the oldest LSN still held, continues from there, and shows what comes next.
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import t from 'tap'
import { Database } from '../src/database/index.js'
import { internalsOf } from '../src/database/internals.js'
import { encodeCommitHeader } from '../src/txn/index.js'
import { buildConsole, launchBrowser, newPage, screenshot } from './helpers/browser.js'
import { api, startServer } from './helpers/http-server.js'
import { tempDir } from './helpers/temp-dir.js'

const token = 'console-tail-gap-token-0123456789'

t.test('a tail overtaken by retention reports the gap and continues from the oldest event held', async (t) => {
  const browser = await launchBrowser(t)
  const consoleDir = buildConsole(t)
  const dir = tempDir(t)
  writeFileSync(join(dir, 'schema.eel'), 'collection items { id: int primary, v: int }\n')
  const db = await Database.open(join(dir, 'db'), { schema: [join(dir, 'schema.eel')], tailRetentionBytes: 1, checkpointWalBytes: 1 })
  t.teardown(() => db.close())
  const { origin } = await startServer(t, { token, db, consoleDir })
  const call = api(origin, token)
  const insert = async (id: number) => t.equal((await call('/api/v1/t/default/query', { json: { query: `insert items {id: ${id}, v: ${id * 1000 + 7}}` } })).status, 200)
  const page = await newPage(browser)
  await page.goto(`${origin}/console/`)
  await page.fill('#token', token)
  await page.click('form.connect-form button[type=submit]')
  await page.waitForSelector('.page[data-loaded]')
  await page.click('a.nav-link[href="#/tail"]')
  await page.waitForSelector('.tail-status[data-state="live"]')
  await insert(1)
  await page.waitForSelector('.tail-table tr:has-text("1007")')

  await page.click('button:has-text("Pause")')
  await page.waitForSelector('.tail-status[data-state="paused"]')
  const shown = internalsOf(db).engine.stats().current_lsn
  await insert(2)
  const blob = Buffer.alloc(1000 * 1024, 1)
  for (let i = 0; i < 40 && internalsOf(db).engine.stats().oldest_lsn <= shown + 1; i += 1) {
    await internalsOf(db).engine.commit([{ op: 'put', tree: 'filler', key: Buffer.from([i]), value: blob }], encodeCommitHeader('default', new Date(), 'catalog'))
  }
  const { oldest_lsn } = internalsOf(db).engine.stats()
  t.ok(oldest_lsn > shown + 1, 'retention deleted the events after the place the tail paused at')

  await page.click('button:has-text("Resume")')
  await page.waitForSelector('.callout.warn')
  t.match(await page.textContent('.callout.warn'), new RegExp(`events before LSN ${oldest_lsn.toLocaleString('en-US')} are gone`), 'the gap, with the oldest LSN held')
  await page.waitForSelector('.tail-status[data-state="live"]')
  await insert(3)
  await page.waitForSelector('.tail-table tr:has-text("3007")')
  t.equal(await page.locator('.tail-table tr:has-text("2007")').count(), 0, 'the event lost to retention is not shown')
  t.comment(`tail gap: ${await screenshot(page, 'tail-gap')}`)
})
