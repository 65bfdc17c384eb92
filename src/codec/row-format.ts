// The row format's tags and the errors its reader and writer share; the format itself
// is documented as tables at the top of row.ts.
import { CodecError } from './error.js'
import { nesting_depth_max } from './kind.js'

export const row_format_version = 0x01

export const row_tag = {
  null: 0x00, false: 0x01, true: 0x02, uint: 0x03, negint: 0x04, float: 0x05, string: 0x06,
  timestamp: 0x07, timestamp_neg: 0x08, list: 0x09, record: 0x0a,
} as const

export function tooDeep(): CodecError {
  return new CodecError(`row nests deeper than ${nesting_depth_max} levels`)
}
