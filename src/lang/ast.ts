// The abstract syntax of Eel: what the parser (src/lang/parse.ts) builds from the
// lezer tree, and what the checker, planner and executor consume. Every node carries
// the source span it came from, so any later stage can report `line:column`.

/** Offsets into the source text, [from, to). */
export interface Span {
  from: number
  to: number
}

/** A value as Eel sees it. Timestamps are `Date`; `json` values are any of these. */
export type Value = null | boolean | number | string | Date | Value[] | { [field: string]: Value }

export type BinaryOp = '+' | '-' | '*' | '/' | '%' | '==' | '!=' | '<' | '<=' | '>' | '>=' | 'and' | 'or' | 'in'

export type Expr =
  | { kind: 'literal'; value: null | boolean | number | string; integer: boolean; span: Span }
  /** `90s`, `1h30m`: a duration literal, in milliseconds (docs/language.md "Time"). */
  | { kind: 'duration'; ms: number; span: Span }
  | { kind: 'list'; items: Expr[]; span: Span }
  | { kind: 'record'; fields: RecordField[]; span: Span }
  /** A field of the current row; `path` has more than one name for nested fields (a.b). */
  | { kind: 'field'; path: string[]; span: Span }
  | { kind: 'param'; name: string; span: Span }
  | { kind: 'unary'; op: '-' | 'not'; operand: Expr; span: Span }
  | { kind: 'binary'; op: BinaryOp; left: Expr; right: Expr; span: Span }
  | { kind: 'call'; name: string; nameSpan: Span; args: Expr[]; span: Span }

export interface RecordField {
  name: string
  nameSpan: Span
  value: Expr
}

export type AggregateFn = 'count' | 'count_distinct' | 'sum' | 'min' | 'max' | 'avg'

export interface SelectItem {
  /** The output column: the given name, or the last path segment of a plain field. */
  name: string
  expr: Expr
  span: Span
}

/** `returning *` (every field of the written rows), or the items named. */
export type Returning = { kind: 'all'; span: Span } | { kind: 'items'; items: SelectItem[]; span: Span }

export interface SortKey {
  expr: Expr
  descending: boolean
  span: Span
}

export interface AggregateItem {
  name: string
  fn: AggregateFn
  /** null for count(). */
  arg: Expr | null
  span: Span
}

export type Stage =
  | { kind: 'where'; predicate: Expr; span: Span }
  | { kind: 'select'; items: SelectItem[]; span: Span }
  | { kind: 'sort'; keys: SortKey[]; span: Span }
  | { kind: 'skip'; count: Expr; span: Span }
  | { kind: 'take'; count: Expr; span: Span }
  | { kind: 'count'; span: Span }
  | { kind: 'aggregate'; items: AggregateItem[]; by: Expr[]; span: Span }
  | { kind: 'distinct'; fields: Expr[]; span: Span }
  | { kind: 'get'; key: Expr; span: Span }
  | { kind: 'update'; set: RecordField[]; returning: Returning | null; span: Span }
  | { kind: 'delete'; returning: Returning | null; span: Span }
  /**
   * `lookup [inner] [many] name: collection on left == field`: `left` is evaluated on
   * the incoming row, `field` names a field of `collection` (src/query/exec/lookup.ts).
   */
  | { kind: 'lookup'; name: string; collection: string; collectionSpan: Span; inner: boolean; many: boolean; left: Expr; field: string; fieldSpan: Span; span: Span }

export type Source =
  | { kind: 'collection'; name: string; span: Span }
  | { kind: 'call'; name: string; nameSpan: Span; args: RecordField[]; span: Span }

export type Statement =
  | { kind: 'pipeline'; source: Source; stages: Stage[]; span: Span }
  /** `insert users {…}`, `insert users [{…}, …]`, `insert users $rows`. */
  | { kind: 'insert' | 'upsert'; collection: string; collectionSpan: Span; rows: Expr; returning: Returning | null; span: Span }
  | { kind: 'explain'; statement: Statement; span: Span }
  | { kind: 'atomic'; statements: Statement[]; span: Span }
  | CollectionDecl
  | QueryDecl
  | DropCollectionDecl
  | TenantOp

// ---- Schema declarations (schema files only) ----

export type TypeExpr =
  | { kind: 'int' | 'float' | 'string' | 'bool' | 'timestamp' | 'json'; span: Span }
  | { kind: 'list'; item: TypeExpr; span: Span }
  | { kind: 'optional'; inner: TypeExpr; span: Span }
  /** `ref users`: a reference to a row of `users` (its primary key). */
  | { kind: 'ref'; collection: string; span: Span }

/** What deleting a referenced row does to the rows referring to it. */
export type ReferenceAction = 'refuse' | 'cascade' | 'set_null'

export interface FieldDecl {
  kind: 'field'
  name: string
  type: TypeExpr
  primary: boolean
  unique: boolean
  /** `= expr`: a literal, a list/record of literals, or `now()`. */
  default: Expr | null
  /** `was old_name`: an explicit rename. */
  was: string | null
  /** `narrowed`: the schema author accepts a narrowing type change (values that do not convert still block). */
  narrowed: boolean
  /** `on delete …` of a reference field. */
  onDelete: { action: ReferenceAction; span: Span } | null
  span: Span
}

export interface IndexDecl {
  kind: 'index'
  fields: string[]
  unique: boolean
  span: Span
}

/** `dropped name`: the author accepts that field `name` and its data are removed. */
export interface DroppedFieldDecl {
  kind: 'dropped'
  name: string
  span: Span
}

export interface CollectionDecl {
  kind: 'collection_decl'
  name: string
  nameSpan: Span
  /** `collection users was people { … }`: an explicit rename. */
  was: string | null
  members: Array<FieldDecl | IndexDecl | DroppedFieldDecl>
  span: Span
}

/** `dropped collection name`: the author accepts that collection `name` and its rows are removed. */
export interface DropCollectionDecl {
  kind: 'drop_collection_decl'
  name: string
  span: Span
}

export interface QueryParamDecl {
  name: string
  type: TypeExpr
  default: Expr | null
  span: Span
}

export interface QueryDecl {
  kind: 'query_decl'
  name: string
  nameSpan: Span
  params: QueryParamDecl[]
  body: Statement & { kind: 'pipeline' }
  span: Span
}

// ---- Tenant operations (embedded `db.run` and `tenantdb query` only) ----

export type TenantOp =
  | { kind: 'tenant_op'; op: 'create' | 'suspend' | 'resume' | 'compact'; name: string; span: Span }
  /** Deletes the tenant, or with `snapshot` drops that snapshot of it. */
  | { kind: 'tenant_op'; op: 'delete'; name: string; snapshot: string | null; span: Span }
  | { kind: 'tenant_op'; op: 'fork'; name: string; snapshot: string | null; target: string; span: Span }
  | { kind: 'tenant_op'; op: 'snapshot'; name: string; target: string; span: Span }
  /** The tenant's head becomes the snapshot's version. */
  | { kind: 'tenant_op'; op: 'restore'; name: string; snapshot: string; span: Span }
  /** Sets limits of the tenant; null returns one to the server's default. */
  | { kind: 'tenant_op'; op: 'limit'; name: string; limits: Record<string, number | null>; span: Span }

/** A parsed source text: one statement for queries, many declarations for schema files. */
export interface Script {
  statements: Statement[]
}
