// How many terminal cells text takes: 2 for East Asian wide and fullwidth characters
// (CJK, most emoji), 0 for combining marks and format characters (accents, ZWJ,
// variation selectors), 1 otherwise. The terminal is given the same rule
// (`unicodeProvider`), so the line editor's cursor lands where xterm.js draws.

import { eastAsianWidth } from 'get-east-asian-width';
import type { IUnicodeVersionProvider } from '@xterm/xterm';

const ZERO_WIDTH = /^[\p{Mn}\p{Me}\p{Cf}]$/u;

export function codePointWidth(codePoint: number): 0 | 1 | 2 {
  if (codePoint < 0x20 || (codePoint >= 0x7f && codePoint < 0xa0)) return 0;
  if (codePoint < 0x7f) return 1;
  if (ZERO_WIDTH.test(String.fromCodePoint(codePoint))) return 0;
  return eastAsianWidth(codePoint, { ambiguousAsWide: false }) === 2 ? 2 : 1;
}

/** The cells `text` takes (no escape sequences in it). */
export function cellWidth(text: string): number {
  let cells = 0;
  for (const ch of text) cells += codePointWidth(ch.codePointAt(0)!);
  return cells;
}

/** xterm.js's property value: width in bits 1-2, "joins the preceding character" in
 * bit 0 (as its own Unicode providers encode it). */
function property(width: number, joins: boolean): number {
  return ((width & 3) << 1) | (joins ? 1 : 0);
}

/** The rule above as a Unicode version for xterm.js (`term.unicode.register`). */
export const unicodeProvider: IUnicodeVersionProvider = {
  version: 'sandtab',
  wcwidth: codePointWidth,
  charProperties(codePoint: number, preceding: number): number {
    let width: number = codePointWidth(codePoint);
    // A zero-width character joins the one before it (an accent on its letter).
    let joins = width === 0 && preceding !== 0;
    if (joins) {
      const before = (preceding >> 1) & 3;
      if (before === 0) joins = false;
      else if (before > width) width = before;
    }
    return property(width, joins);
  },
};
