// Eel text the console writes itself (the data browser's queries): names in backticks
// when they are not plain words, values always as $params, never spliced into the text.
import { reserved_words } from '../../../src/lang/index.js'

/** `name` as Eel reads it: itself when it is a plain word that is no keyword, else in backticks. */
export function eelName(name: string): string {
  return /^[A-Za-z_][A-Za-z0-9_]*$/.test(name) && !reserved_words.has(name) ? name : `\`${name}\``
}
