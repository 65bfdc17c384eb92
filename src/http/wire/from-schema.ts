// The TypeScript type of a JSON schema written `as const`: the wire types are derived
// from the schemas the routes are registered with (docs/architecture.md, "Wire types"),
// so the body a route's schema describes, the OpenAPI document and the console's types
// are one text. Only what the routes' schemas use is understood:
//
//   const, enum                      the literal values
//   type (a name, or a list)         string, integer and number, boolean, null, array
//                                    (items), object (properties, required)
//   additionalProperties             true: any other field (unknown); a schema: every
//                                    field of that type; absent or false: no other field
//                                    (the types are closed, so a misspelt field is an
//                                    error in the console, where the wire shape is read)
//   oneOf, anyOf                     the union of the branches, each with the
//                                    surrounding schema's keywords (the branch's win)
//   $ref 'Id#'                       Refs['Id']: the shared schemas by the types derived
//                                    from them, or a type written once elsewhere (the
//                                    schema IR, src/schema/ir.ts)
//   anything else ({}, a description) unknown

/** A `$ref` to a shared schema (registered with that `$id`: ../schemas.ts), typed for FromSchema. */
export const ref = <Id extends string>(id: Id) => ({ $ref: `${id}#` as const })

type Simplify<T> = { [K in keyof T]: T[K] } & {}

type PropertiesOf<S> = S extends { readonly properties: infer P } ? P : {}
type RequiredOf<S> = S extends { readonly required: readonly (infer R)[] } ? R : never

/** A branch of oneOf/anyOf with the surrounding schema's other keywords (the branch's win; properties merge). */
type Merge<P, B> = Omit<P, keyof B | 'oneOf' | 'anyOf' | 'properties'> & Omit<B, 'properties'> &
  { readonly properties: Omit<PropertiesOf<P>, keyof PropertiesOf<B>> & PropertiesOf<B> }

type Branches<S, Bs, Refs> = Bs extends readonly (infer B)[] ? (B extends unknown ? FromSchema<Merge<S, B>, Refs> : never) : never

type ObjectOf<S, Refs> = Simplify<
  { -readonly [K in keyof PropertiesOf<S> & RequiredOf<S>]-?: FromSchema<PropertiesOf<S>[K], Refs> } &
  { -readonly [K in Exclude<keyof PropertiesOf<S>, RequiredOf<S>>]?: FromSchema<PropertiesOf<S>[K], Refs> } &
  (S extends { readonly additionalProperties: true } ? { [field: string]: unknown }
    : S extends { readonly additionalProperties: infer A extends object } ? { [field: string]: FromSchema<A, Refs> }
    : {})
>

type OfType<S, T, Refs> =
  T extends 'string' ? string
  : T extends 'integer' | 'number' ? number
  : T extends 'boolean' ? boolean
  : T extends 'null' ? null
  : T extends 'array' ? (S extends { readonly items: infer I } ? Array<FromSchema<I, Refs>> : unknown[])
  : T extends 'object' ? ObjectOf<S, Refs>
  : unknown

export type FromSchema<S, Refs = {}> =
  S extends { readonly $ref: `${infer Id}#` } ? (Id extends keyof Refs ? Refs[Id] : unknown)
  : S extends { readonly oneOf: infer Bs } ? Branches<S, Bs, Refs>
  : S extends { readonly anyOf: infer Bs } ? Branches<S, Bs, Refs>
  : S extends { readonly const: infer C } ? C
  : S extends { readonly enum: readonly (infer E)[] } ? E
  : S extends { readonly type: readonly (infer T)[] } ? (T extends unknown ? OfType<S, T, Refs> : never)
  : S extends { readonly type: infer T } ? OfType<S, T, Refs>
  : unknown
