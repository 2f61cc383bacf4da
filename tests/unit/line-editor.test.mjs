// The terminal's line editing and key splitting, as plain logic (built from web/src).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { LineEditor, splitKeys } from '../../web/dist/line-editor.js';

function typeKeys(editor, data) {
  return splitKeys(data).map((key) => editor.key(key));
}

test('typing, cursor movement and backspace edit the line', () => {
  const editor = new LineEditor();
  typeKeys(editor, 'echo hllo');
  typeKeys(editor, '\x1b[D\x1b[D\x1b[D'); // left x3: cursor before "llo"
  typeKeys(editor, 'e');
  assert.equal(editor.line, 'echo hello');
  typeKeys(editor, '\x1b[F\x7f'); // End, Backspace
  assert.equal(editor.line, 'echo hell');
  typeKeys(editor, '\x01\x1b[3~'); // Home, Delete
  assert.equal(editor.line, 'cho hell');
  assert.equal(editor.cursor, 0);
});

test('enter submits and history walks back and forth, keeping the draft', () => {
  const editor = new LineEditor();
  assert.deepEqual(typeKeys(editor, 'one\r').at(-1), { kind: 'submit', line: 'one' });
  typeKeys(editor, 'two\r');
  typeKeys(editor, 'dra');
  typeKeys(editor, '\x1b[A');
  assert.equal(editor.line, 'two');
  typeKeys(editor, '\x1b[A\x1b[A'); // stops at the oldest
  assert.equal(editor.line, 'one');
  typeKeys(editor, '\x1b[B\x1b[B');
  assert.equal(editor.line, 'dra');
});

test('blank lines and repeats are not added to history', () => {
  const editor = new LineEditor();
  typeKeys(editor, 'ls\r\rls\r   \r');
  assert.deepEqual(editor.history, ['ls']);
});

test('history is bounded', () => {
  const editor = new LineEditor(3);
  typeKeys(editor, 'a\rb\rc\rd\r');
  assert.deepEqual(editor.history, ['b', 'c', 'd']);
});

test('Ctrl-C interrupts and clears the line; Ctrl-U kills to the start', () => {
  const editor = new LineEditor();
  typeKeys(editor, 'abc');
  assert.deepEqual(typeKeys(editor, '\x03'), [{ kind: 'interrupt' }]);
  assert.equal(editor.line, '');
  typeKeys(editor, 'hello world\x1b[D\x1b[D\x15');
  assert.equal(editor.line, 'ld');
});

test('a paste with newlines submits line by line; escapes stay whole', () => {
  assert.deepEqual(splitKeys('ls\ncat a\n'), ['ls', '\r', 'cat a', '\r']);
  assert.deepEqual(splitKeys('\x1b[A\x1bOHx'), ['\x1b[A', '\x1bOH', 'x']);
  const editor = new LineEditor();
  const results = typeKeys(editor, 'echo 1\necho 2\n').filter((r) => r.kind === 'submit');
  assert.deepEqual(results.map((r) => r.line), ['echo 1', 'echo 2']);
});

test('control characters other than known keys are not inserted', () => {
  const editor = new LineEditor();
  typeKeys(editor, 'a\x07b\x1b[99Zc');
  assert.equal(editor.line, 'abc');
});
