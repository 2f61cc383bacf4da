// Terminal cell widths, as the line editor and xterm.js (through our Unicode provider)
// both count them (built from web/src).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { cellWidth, unicodeProvider } from '../../web/dist/cell-width.js';

test('ASCII is one cell each; CJK and emoji two; accents and joiners none', () => {
  assert.equal(cellWidth('echo hi'), 7);
  assert.equal(cellWidth('字符'), 4);
  assert.equal(cellWidth('👍'), 2);
  assert.equal(cellWidth('e\u0301'), 1);
  assert.equal(cellWidth('\u200d'), 0);
  assert.equal(cellWidth('ｱ'), 1); // halfwidth katakana
  assert.equal(cellWidth('Ａ'), 2); // fullwidth A
});

test('the provider joins a zero-width character to the one before it', () => {
  const wide = unicodeProvider.charProperties('字'.codePointAt(0), 0);
  assert.equal((wide >> 1) & 3, 2);
  assert.equal(wide & 1, 0);
  const accent = unicodeProvider.charProperties(0x301, unicodeProvider.charProperties(0x65, 0));
  assert.equal(accent & 1, 1, 'joins');
  assert.equal((accent >> 1) & 3, 1, 'keeps the letter width');
});
