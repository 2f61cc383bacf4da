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

test('emacs keys: words, kills and the yank', () => {
  const editor = new LineEditor();
  typeKeys(editor, 'git commit -m msg');
  typeKeys(editor, '\x1bb'); // Alt-B: to the start of "msg"
  assert.equal(editor.cursor, 'git commit -m '.length);
  typeKeys(editor, '\x1bb\x1bb'); // over "-m" (separators, then a word) to "commit"
  assert.equal(editor.cursor, 'git '.length);
  typeKeys(editor, '\x1bf'); // Alt-F: to the end of "commit"
  assert.equal(editor.cursor, 'git commit'.length);
  typeKeys(editor, '\x17'); // Ctrl-W: the whitespace-separated word before the cursor
  assert.equal(editor.line, 'git  -m msg');
  typeKeys(editor, '\x0b'); // Ctrl-K: to the end
  assert.equal(editor.line, 'git ');
  typeKeys(editor, '\x01\x19'); // Ctrl-A, Ctrl-Y: the last kill back, at the start
  assert.equal(editor.line, ' -m msggit ');
  assert.equal(editor.cursor, ' -m msg'.length);
  typeKeys(editor, '\x01\x1b[1;5C'); // Ctrl-Right moves by word too
  assert.equal(editor.cursor, ' -m'.length);
});

test('Ctrl-D deletes under the cursor, and is end of input on an empty line', () => {
  const editor = new LineEditor();
  assert.deepEqual(typeKeys(editor, '\x04'), [{ kind: 'eof' }]);
  typeKeys(editor, 'abc\x01\x04');
  assert.equal(editor.line, 'bc');
});

test('the cursor moves over whole characters: emoji, accents, CJK', () => {
  const editor = new LineEditor();
  typeKeys(editor, 'a👍🏽e\u0301字');
  typeKeys(editor, '\x1b[D'); // before 字
  assert.equal(editor.line.slice(editor.cursor), '字');
  typeKeys(editor, '\x1b[D'); // before e + combining acute
  assert.equal(editor.line.slice(editor.cursor), 'e\u0301字');
  typeKeys(editor, '\x7f'); // the thumbs-up with its skin tone, whole
  assert.equal(editor.line, 'ae\u0301字');
});

test('Ctrl-R searches the history back, narrowing as it is typed', () => {
  const editor = new LineEditor();
  editor.loadHistory(['ls -l', 'cat notes.txt', 'python3 app.py', 'cat app.py']);
  typeKeys(editor, 'draft');
  typeKeys(editor, '\x12');
  assert.equal(editor.searchPrompt, "(reverse-i-search)`': ");
  typeKeys(editor, 'cat');
  assert.equal(editor.searchPrompt, "(reverse-i-search)`cat': ");
  assert.equal(editor.line, 'cat app.py');
  typeKeys(editor, '\x12'); // an older match
  assert.equal(editor.line, 'cat notes.txt');
  typeKeys(editor, 'x'); // "catx" matches nothing: the search says so, the line stays
  assert.equal(editor.searchPrompt, "(failed reverse-i-search)`catx': ");
  assert.equal(editor.line, 'cat notes.txt');
  typeKeys(editor, '\x7f');
  assert.equal(editor.line, 'cat app.py');
  // Enter runs the match.
  assert.deepEqual(typeKeys(editor, '\r'), [{ kind: 'submit', line: 'cat app.py' }]);
  assert.equal(editor.searchPrompt, null);
});

test('Ctrl-R: Ctrl-G gives the line back; another key edits the match', () => {
  const editor = new LineEditor();
  editor.loadHistory(['echo one', 'echo two']);
  typeKeys(editor, 'mine\x12one\x07');
  assert.equal(editor.searchPrompt, null);
  assert.equal(editor.line, 'mine');
  typeKeys(editor, '\x15\x12two\x05!');
  assert.equal(editor.line, 'echo two!');
});

test('kept history loads without blank lines, to the bound', () => {
  const editor = new LineEditor(2);
  editor.loadHistory(['a', ' ', 'b', 'c']);
  assert.deepEqual(editor.history, ['b', 'c']);
  typeKeys(editor, '\x1b[A');
  assert.equal(editor.line, 'c');
});
