import { parse } from './src/lang/parse.js'
const forms: Record<string, (n: number) => string> = {
  record: (n) => 'users | where x == ' + '{a: '.repeat(n) + '1' + '}'.repeat(n),
  list: (n) => 'users | where x == ' + '['.repeat(n) + '1' + ']'.repeat(n),
  paren: (n) => 'users | where x == ' + '('.repeat(n) + '1' + ')'.repeat(n),
  call: (n) => 'users | where x == ' + 'abs('.repeat(n) + '1' + ')'.repeat(n),
  neg: (n) => 'users | where x == ' + '- '.repeat(n) + 'x',
  not: (n) => 'users | where ' + 'not '.repeat(n) + 'x',
  rightplus: (n) => 'users | where x == ' + '1 + ('.repeat(n) + '1' + ')'.repeat(n),
}
for (const [name, make] of Object.entries(forms)) {
  for (const n of [150, 300, 600, 900, 1001, 1500, 2000, 2800, 5000]) {
    try { parse(make(n)); console.log(name, n, 'ok') } catch (e: any) { console.log(name, n, e.message.slice(0, 140)) }
  }
}
