// What a convert_field step does to each stored value: widenings never fail, narrowed
// changes fail (and so block) on a value that does not convert exactly.
import t from 'tap'
import { classifyChange, convertValue, type FieldShape } from '../src/schema/conversion.js'
import { BOOL, FLOAT, INT, JSON_T, list, STRING, TIMESTAMP } from './schema-fixtures/ir.js'
import type { FieldType } from '../src/schema/ir.js'

const req = (type: FieldType): FieldShape => ({ type, optional: false })
const opt = (type: FieldType): FieldShape => ({ type, optional: true })

t.test('conversion: classification of type changes', async (t) => {
  const cases: Array<[FieldShape, FieldShape, string]> = [
    [req(INT), req(INT), 'same'],
    [req(INT), req(FLOAT), 'widen'],
    [req(INT), opt(INT), 'widen'],
    [req(STRING), req(list(STRING)), 'widen'],
    [req(INT), req(list(FLOAT)), 'widen'],
    [req(list(INT)), req(list(FLOAT)), 'widen'],
    [req(TIMESTAMP), req(JSON_T), 'widen'],
    [req(FLOAT), req(INT), 'narrow'],
    [opt(INT), req(INT), 'narrow'],
    [opt(INT), opt(FLOAT), 'widen'],
    [opt(FLOAT), req(INT), 'narrow'],
    [req(list(STRING)), req(STRING), 'narrow'],
    [req(JSON_T), req(list(INT)), 'narrow'],
    [req(INT), req(STRING), 'narrow'],
    [req(STRING), req(BOOL), 'narrow'],
    [req(list(FLOAT)), req(list(INT)), 'narrow'],
    [req(BOOL), req(INT), 'impossible'],
    [req(TIMESTAMP), req(FLOAT), 'impossible'],
    [req(list(BOOL)), req(TIMESTAMP), 'impossible'],
    [req(BOOL), req(list(TIMESTAMP)), 'impossible'],
  ]
  for (const [from, to, expected] of cases) t.equal(classifyChange(from, to), expected, `${JSON.stringify(from)} -> ${JSON.stringify(to)}`)
})

t.test('conversion: widenings keep every value', async (t) => {
  t.same(convertValue(3, req(INT), req(FLOAT)), { ok: true, value: 3 })
  t.same(convertValue(undefined, req(INT), opt(INT)), { ok: true, value: null })
  t.same(convertValue('a', req(STRING), req(list(STRING))), { ok: true, value: ['a'] })
  t.same(convertValue([1, 2], req(list(INT)), req(list(FLOAT))), { ok: true, value: [1, 2] })
  const at = new Date('2024-05-01T10:00:00.000Z')
  t.same(convertValue(at, req(TIMESTAMP), req(JSON_T)), { ok: true, value: '2024-05-01T10:00:00.000Z' })
  t.same(convertValue([at], req(list(TIMESTAMP)), req(JSON_T)), { ok: true, value: ['2024-05-01T10:00:00.000Z'] })
})

t.test('conversion: narrowed changes convert exact values and refuse the rest', async (t) => {
  t.same(convertValue(2, req(FLOAT), req(INT)), { ok: true, value: 2 })
  t.same(convertValue(2.5, req(FLOAT), req(INT)), { ok: false, reason: 'value 2.5 does not convert to int' })
  t.same(convertValue(null, opt(INT), req(INT)), { ok: false, reason: 'null does not convert to a required field' })
  t.same(convertValue(7, opt(INT), req(INT)), { ok: true, value: 7 })
  t.same(convertValue(['x'], req(list(STRING)), req(STRING)), { ok: true, value: 'x' })
  t.same(convertValue(['x', 'y'], req(list(STRING)), req(STRING)), { ok: false, reason: 'value ["x","y"] does not convert to string' })
  t.same(convertValue([], req(list(STRING)), req(STRING)), { ok: false, reason: 'value [] does not convert to string' })
  t.same(convertValue([1.5], req(list(FLOAT)), req(list(INT))), { ok: false, reason: 'value 1.5 does not convert to int' })
})

t.test('conversion: json to a specific type needs a value of that type', async (t) => {
  t.same(convertValue(4, req(JSON_T), req(INT)), { ok: true, value: 4 })
  t.same(convertValue('4', req(JSON_T), req(INT)), { ok: false, reason: 'value "4" does not convert to int' })
  t.same(convertValue([1, 2], req(JSON_T), req(list(INT))), { ok: true, value: [1, 2] })
  t.same(convertValue([1, null], req(JSON_T), req(list(INT))), { ok: false, reason: 'value [1,null] does not convert to [int]' })
  t.same(convertValue({ a: 1 }, req(JSON_T), req(STRING)), { ok: false, reason: 'value {"a":1} does not convert to string' })
  t.same(convertValue(true, req(JSON_T), req(BOOL)), { ok: true, value: true })
  t.same(convertValue('2024-05-01T10:00:00Z', req(JSON_T), req(TIMESTAMP)), { ok: true, value: new Date('2024-05-01T10:00:00Z') })
  t.same(convertValue(null, opt(JSON_T), opt(INT)), { ok: true, value: null })
})

t.test('conversion: to and from text', async (t) => {
  t.same(convertValue(42, req(INT), req(STRING)), { ok: true, value: '42' })
  t.same(convertValue(true, req(BOOL), req(STRING)), { ok: true, value: 'true' })
  t.same(convertValue(new Date('2024-05-01T00:00:00Z'), req(TIMESTAMP), req(STRING)), { ok: true, value: '2024-05-01T00:00:00.000Z' })
  t.same(convertValue('-12', req(STRING), req(INT)), { ok: true, value: -12 })
  t.same(convertValue('012', req(STRING), req(INT)), { ok: false, reason: 'value "012" does not convert to int' })
  t.same(convertValue('9007199254740993', req(STRING), req(INT)), { ok: false, reason: 'value "9007199254740993" does not convert to int' })
  t.same(convertValue('1.5e3', req(STRING), req(FLOAT)), { ok: true, value: 1500 })
  t.same(convertValue('abc', req(STRING), req(FLOAT)), { ok: false, reason: 'value "abc" does not convert to float' })
  t.same(convertValue('false', req(STRING), req(BOOL)), { ok: true, value: false })
  t.same(convertValue('yes', req(STRING), req(BOOL)), { ok: false, reason: 'value "yes" does not convert to bool' })
  t.same(convertValue('2024-05-01', req(STRING), req(TIMESTAMP)), { ok: true, value: new Date('2024-05-01T00:00:00Z') })
  // A time without a zone would depend on the server's local zone.
  t.same(convertValue('2024-05-01T10:00', req(STRING), req(TIMESTAMP)), { ok: false, reason: 'value "2024-05-01T10:00" does not convert to timestamp' })
  const long = 'x'.repeat(50)
  t.same(convertValue(long, req(STRING), req(INT)), { ok: false, reason: `value "${'x'.repeat(36)}... does not convert to int` })
})
