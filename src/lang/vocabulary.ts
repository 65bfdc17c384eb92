// Eel's words as one list each, for tools that offer them (the console's autocompletion)
// and for the checks that keep them true: the stages are the grammar's stage keywords
// (parse-scan.ts); the functions and aggregates are those the query layer implements
// (src/query/values/functions.ts, cst-statement.ts), and test/lang-vocabulary.test.ts fails
// when the two differ, so a function added there is added here. Browser-safe.
import { keywords, stageKeywords } from './parse-scan.js'

export interface WordInfo {
  name: string
  /** How it is written, as docs/language.md shows it. */
  signature: string
  /** What it does, in a few words. */
  about: string
}

/** The stages that may follow `|`, in the order docs/language.md lists them. */
export const stage_words: readonly WordInfo[] = [
  { name: 'where', signature: 'where EXPR', about: 'keeps rows for which EXPR is true' },
  { name: 'select', signature: 'select ITEM, …', about: 'output columns' },
  { name: 'sort', signature: 'sort EXPR [asc|desc], …', about: 'stable sort' },
  { name: 'skip', signature: 'skip N', about: 'drops the first N rows' },
  { name: 'take', signature: 'take N', about: 'keeps the first N rows' },
  { name: 'count', signature: 'count', about: 'one row, one column count' },
  { name: 'aggregate', signature: 'aggregate NAME: FN(EXPR), … [by FIELD, …]', about: 'one row per group' },
  { name: 'distinct', signature: 'distinct FIELD, …', about: 'the distinct combinations' },
  { name: 'get', signature: 'get EXPR', about: 'the row with that primary key (first stage)' },
  { name: 'update', signature: 'update {field: expr, …}', about: 'changes the rows that reach it' },
  { name: 'delete', signature: 'delete', about: 'deletes the rows that reach it' },
  { name: 'lookup', signature: 'lookup [inner] [many] NAME: COLLECTION on EXPR == FIELD', about: 'joins each row to rows of another collection' },
]

/** The functions of expressions. */
export const function_words: readonly WordInfo[] = [
  { name: 'lower', signature: 'lower(s)', about: 'the string in lower case' },
  { name: 'upper', signature: 'upper(s)', about: 'the string in upper case' },
  { name: 'len', signature: 'len(x)', about: 'length of a string or a list' },
  { name: 'contains', signature: 'contains(s, sub)', about: 'whether a string or list holds a value' },
  { name: 'starts_with', signature: 'starts_with(s, prefix)', about: 'whether s starts with prefix' },
  { name: 'coalesce', signature: 'coalesce(a, b, …)', about: 'the first argument that is not null' },
  { name: 'abs', signature: 'abs(n)', about: 'absolute value' },
  { name: 'round', signature: 'round(n[, digits])', about: 'n rounded, halves away from zero' },
  { name: 'now', signature: 'now()', about: 'the time the statement started' },
  { name: 'if', signature: 'if(cond, a, b)', about: 'a when cond is true, else b' },
  { name: 'like', signature: 'like(s, pattern)', about: 'whether s matches the SQL pattern (% and _)' },
  { name: 'matches', signature: 'matches(s, re)', about: 'whether s holds a match of the regular expression' },
  { name: 'trim', signature: 'trim(s)', about: 's without leading and trailing white space' },
  { name: 'replace', signature: 'replace(s, from, to)', about: 'every occurrence of from replaced by to' },
  { name: 'split', signature: 'split(s, sep)', about: 'the parts of s between occurrences of sep' },
  { name: 'substr', signature: 'substr(s, start[, length])', about: 'the characters from start (from 0)' },
  { name: 'floor', signature: 'floor(n)', about: 'the int below n' },
  { name: 'ceil', signature: 'ceil(n)', about: 'the int above n' },
  { name: 'timestamp', signature: 'timestamp(x)', about: 'the timestamp an ISO-8601 string or milliseconds name' },
  { name: 'year', signature: 'year(t)', about: 'the UTC year of t' },
  { name: 'month', signature: 'month(t)', about: 'the UTC month of t, 1-12' },
  { name: 'day', signature: 'day(t)', about: 'the UTC day of the month of t' },
  { name: 'hour', signature: 'hour(t)', about: 'the UTC hour of t' },
  { name: 'minute', signature: 'minute(t)', about: 'the UTC minute of t' },
  { name: 'second', signature: 'second(t)', about: 'the UTC second of t' },
  { name: 'weekday', signature: 'weekday(t)', about: 'the ISO day of the week in UTC, 1 Monday' },
  { name: 'date_trunc', signature: 'date_trunc(t, unit)', about: 'the start of the UTC unit holding t' },
]

/** The functions of `aggregate`. */
export const aggregate_words: readonly WordInfo[] = [
  { name: 'count', signature: 'count() | count(x)', about: 'rows, or values that are not null' },
  { name: 'count_distinct', signature: 'count_distinct(x)', about: 'distinct values that are not null' },
  { name: 'sum', signature: 'sum(x)', about: 'the total' },
  { name: 'min', signature: 'min(x)', about: 'the smallest value' },
  { name: 'max', signature: 'max(x)', about: 'the largest value' },
  { name: 'avg', signature: 'avg(x)', about: 'the mean' },
]

/** The grammar's stage keywords, for the test that compares them with stage_words. */
export const stage_keywords: ReadonlySet<string> = stageKeywords

/** Every reserved word: a name spelled like one must be written in backticks. */
export const reserved_words: ReadonlySet<string> = keywords
