// Schema files from disk → IR and fingerprint. Files are named by their base name, as
// `GET /schema.eel` shows them; a read failure says which path.
import { readFile } from 'node:fs/promises'
import { basename } from 'node:path'
import { CodedError } from '../coded-error.js'
import { buildSchemaIR } from './build-ir.js'
import { fingerprint } from './fingerprint.js'
import type { SchemaIR } from './ir.js'
import type { SourceFile } from './report.js'

export interface LoadedSchema {
  ir: SchemaIR
  fingerprint: string
  files: SourceFile[]
}

export class SchemaReadError extends CodedError<'schema_unreadable'> {
  constructor(readonly path: string, cause: unknown) {
    super('schema_unreadable', `cannot read schema file ${path}: ${(cause as Error).message}`, { path }, { cause })
  }
}

/** Throws SchemaReadError for a file it cannot read, SchemaError for an invalid schema. */
export async function loadSchema(paths: readonly string[]): Promise<LoadedSchema> {
  const files = await Promise.all(paths.map(async (path) => {
    try {
      return { name: basename(path), source: await readFile(path, 'utf8') }
    } catch (err) {
      throw new SchemaReadError(path, err)
    }
  }))
  const ir = buildSchemaIR(files)
  return { ir, fingerprint: await fingerprint(ir), files }
}
