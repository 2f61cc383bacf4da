// The terminal's line for a command waiting for a program on its way (built from web/src).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { progressLine } from '../../web/dist/progress-line.js';

const event = (phase, loaded, total) => ({ program: 'python3', phase, loaded, total });

test('a download of known size shows the bytes, a bar and the share', () => {
  const line = progressLine(event('fetch', 3_200_000, 6_400_000), 80);
  assert.equal(line, `python3: downloading 3.2 of 6.4 MB ${'█'.repeat(15)}${'░'.repeat(15)} 50%`);
  assert.ok([...line].length <= 80);
});

test('the bar narrows to fit the terminal, and goes before the text does', () => {
  const narrow = progressLine(event('fetch', 6_400_000, 6_400_000), 50);
  assert.equal([...narrow].length, 50);
  assert.match(narrow, /^python3: downloading 6\.4 of 6\.4 MB █+ 100%$/);
  assert.equal(progressLine(event('fetch', 1, 2), 30), 'python3: downloading 0.0 of 0.');
  assert.equal(progressLine(event('fetch', 1, 2), 0), '');
});

test('an unknown size, no bytes yet, and compiling each say so', () => {
  assert.equal(progressLine(event('fetch', 0, 0), 80), 'python3: downloading…');
  assert.equal(progressLine(event('fetch', 2_500_000, 0), 80), 'python3: downloading 2.5 MB');
  assert.equal(progressLine(event('compile', 9, 9), 80), 'python3: compiling…');
});
