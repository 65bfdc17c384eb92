// The client's one error class (docs/client.md, "Errors"): a server's answer keeps its
// code, status, sentence and the rest of its body; an answer that is no error body is
// `http_<status>`; no answer at all has no status.
import t from 'tap'
import { answeredError, TenantdbError, unansweredError } from '../src/client/index.js'

t.test('a server\'s error body: code, status, sentence, conflict and the rest as details', async (t) => {
  const err = answeredError(429, { error: 'tenant \'acme\' is over its budget', code: 'rate_limited', budget: 'commits_per_s', retry_after_s: 2 })
  t.ok(err instanceof TenantdbError)
  t.match(err, { name: 'TenantdbError', code: 'rate_limited', status: 429, conflict: false, message: 'tenant \'acme\' is over its budget', unanswered: false })
  t.same(err.details, { budget: 'commits_per_s', retry_after_s: 2 })
  t.ok(Object.isFrozen(err.details))
  const conflict = answeredError(400, { error: 'another transaction committed first', code: 'conflict', conflict: true })
  t.equal(conflict.conflict, true, 'the query route\'s conflict: 400 with conflict: true')
  t.same(conflict.details, {}, 'conflict is a field, not a detail')
})

t.test('an answer that is no error body is http_<status>', async (t) => {
  for (const body of ['<html>bad gateway</html>', null, { message: 'not ours' }, { error: 'x', code: 5 }]) {
    t.match(answeredError(502, body), { code: 'http_502', status: 502, conflict: false }, JSON.stringify(body))
  }
})

t.test('no answer: no status, the cause kept', async (t) => {
  const cause = new TypeError('fetch failed')
  const err = unansweredError('network_error', 'could not reach http://127.0.0.1:1', cause)
  t.match(err, { code: 'network_error', status: undefined, unanswered: true, conflict: false })
  t.equal(err.cause, cause)
  t.equal(unansweredError('timeout', 'no answer in 30 s').cause, undefined)
})
