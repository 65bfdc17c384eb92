// Hand-built IR for the schema tests: the planner's tests must not depend on the parser.
import type { CollectionIR, FieldIR, FieldType, IndexIR, SchemaIR } from '../../src/schema/ir.js'

export const INT: FieldType = { kind: 'int' }
export const FLOAT: FieldType = { kind: 'float' }
export const STRING: FieldType = { kind: 'string' }
export const BOOL: FieldType = { kind: 'bool' }
export const TIMESTAMP: FieldType = { kind: 'timestamp' }
export const JSON_T: FieldType = { kind: 'json' }
export const list = (item: FieldType): FieldType => ({ kind: 'list', item })

export function field(name: string, type: FieldType, extra: Partial<FieldIR> = {}): FieldIR {
  return { name, type, optional: false, default: null, was: null, narrowed: false, ...extra }
}

export function index(fields: string[], unique = false, name = fields.join('_')): IndexIR {
  return { name, fields, unique }
}

export function collection(name: string, fields: FieldIR[], extra: Partial<CollectionIR> = {}): CollectionIR {
  return { name, primary: 'id', primary_auto: false, fields: [field('id', INT), ...fields], indexes: [], was: null, dropped: [], ...extra }
}

export function schema(collections: CollectionIR[], extra: Partial<SchemaIR> = {}): SchemaIR {
  return { version: 1, collections, queries: [], dropped_collections: [], ...extra }
}
