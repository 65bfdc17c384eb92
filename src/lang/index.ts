// Eel's public surface: the server, the checker and the console import from here.
export type * from './ast.js'
export * from './diagnostic.js'
export { parse, parseExpression, diagnose, type ParseMode } from './parse.js'
export { syntaxDiagnostics } from './syntax-diagnostics.js'
export { parser as eelParser } from './generated/parser.js'
