// Schema loading reads several files, so its diagnostics also name the file; line and
// column stay within that file. The message lists every diagnostic, one per line, as
// "schema.eel:3:5 duplicate field 'name' in collection 'users'", since a server that
// refuses to start should say everything that is wrong at once.
import { EelError, formatDiagnostic, type Diagnostic } from '../lang/diagnostic.js'

export interface SchemaDiagnostic extends Diagnostic {
  /** The file's name as given to buildSchemaIR (loadSchema passes the base name). */
  file: string
}

export function formatSchemaDiagnostic(d: SchemaDiagnostic): string {
  return `${d.file}:${formatDiagnostic(d)}`
}

export class SchemaError extends EelError {
  declare readonly diagnostic: SchemaDiagnostic
  declare readonly diagnostics: SchemaDiagnostic[]

  constructor(diagnostics: SchemaDiagnostic[]) {
    super(diagnostics)
    this.name = 'SchemaError'
    this.message = diagnostics.map(formatSchemaDiagnostic).join('\n')
  }
}
