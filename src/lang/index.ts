// Eel's public surface: the server, the checker and the console import from here.
export type * from './ast.js'
export * from './diagnostic.js'
export { parse, parseExpression, diagnose, type ParseMode } from './parse.js'
export { syntaxDiagnostics } from './syntax-diagnostics.js'
// The raw lezer parser, for the console's highlighter (configure it with top: 'Schema' for schema files).
export { parser as lezerParser } from './generated/parser.js'
// Stage, function and aggregate names with their signatures (the console's autocompletion).
export { aggregate_words, function_words, reserved_words, stage_keywords, stage_words, type WordInfo } from './vocabulary.js'
