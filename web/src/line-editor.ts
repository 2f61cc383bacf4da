// The terminal's line editing, kept apart from xterm.js so it is plain logic: a line
// with a cursor, emacs keys as bash's readline has them, a history walked with up/down
// and searched with Ctrl-R. The cursor moves by user-perceived characters (an emoji,
// a letter with its accents), never into the middle of one.

export type EditResult =
  | { kind: 'edit' } // the line, the cursor or the search changed: redraw
  | { kind: 'submit'; line: string }
  | { kind: 'interrupt' } // Ctrl-C
  | { kind: 'clear' } // Ctrl-L
  | { kind: 'eof' } // Ctrl-D on an empty line
  | { kind: 'none' };

const KEYS: Record<string, string> = {
  '\x1b[A': 'up', '\x1bOA': 'up', '\x10': 'up',
  '\x1b[B': 'down', '\x1bOB': 'down', '\x0e': 'down',
  '\x1b[C': 'right', '\x1bOC': 'right', '\x06': 'right',
  '\x1b[D': 'left', '\x1bOD': 'left', '\x02': 'left',
  '\x1b[H': 'home', '\x1bOH': 'home', '\x1b[1~': 'home', '\x01': 'home',
  '\x1b[F': 'end', '\x1bOF': 'end', '\x1b[4~': 'end', '\x05': 'end',
  '\x1bb': 'word-left', '\x1b[1;5D': 'word-left', '\x1b[1;3D': 'word-left',
  '\x1bf': 'word-right', '\x1b[1;5C': 'word-right', '\x1b[1;3C': 'word-right',
  '\x1b[3~': 'delete',
  '\x7f': 'backspace', '\b': 'backspace',
  '\x17': 'kill-word', '\x1b\x7f': 'kill-word',
  '\x1bd': 'kill-word-right',
  '\x15': 'kill-to-start',
  '\x0b': 'kill-to-end',
  '\x19': 'yank',
  '\r': 'enter',
  '\x03': 'interrupt',
  '\x07': 'abort',
  '\x04': 'eof',
  '\x0c': 'clear',
  '\x12': 'search',
  '\x1b': 'escape',
};

const graphemes = new Intl.Segmenter(undefined, { granularity: 'grapheme' });

/** The code-unit offsets where `text`'s user-perceived characters start, and its end. */
function boundaries(text: string): number[] {
  const starts = [...graphemes.segment(text)].map((segment) => segment.index);
  starts.push(text.length);
  return starts;
}

/** A history search in progress (Ctrl-R): what is typed, and the entry it found. */
interface Search {
  query: string;
  /** The history entry shown, or -1 for none yet (or none found). */
  at: number;
  failed: boolean;
  /** The line before the search, put back if it is aborted. */
  before: { line: string; cursor: number };
}

export class LineEditor {
  line = '';
  /** In UTF-16 code units, always at a character's start. */
  cursor = 0;
  readonly history: string[] = [];
  #historyIndex = 0;
  #draft = '';
  /** The text the last kill took (Ctrl-W, Ctrl-U, Ctrl-K), for Ctrl-Y. */
  #killed = '';
  #search: Search | null = null;

  constructor(readonly maxHistory = 1000) {}

  /** Puts entries (oldest first) into the history, as kept from an earlier visit. */
  loadHistory(entries: readonly string[]): void {
    this.history.splice(0, this.history.length, ...entries.filter((entry) => entry.trim() !== '').slice(-this.maxHistory));
    this.#historyIndex = this.history.length;
  }

  /** While Ctrl-R searches: the prompt to show in place of the shell's (bash's words). */
  get searchPrompt(): string | null {
    const search = this.#search;
    if (!search) return null;
    return `(${search.failed ? 'failed ' : ''}reverse-i-search)\`${search.query}': `;
  }

  /** Applies one key (an escape sequence or a single character). */
  key(data: string): EditResult {
    if (this.#search) return this.#searchKey(data);
    const action = KEYS[data];
    switch (action) {
      case 'enter': {
        const line = this.line;
        this.remember(line);
        this.line = '';
        this.cursor = 0;
        return { kind: 'submit', line };
      }
      case 'interrupt':
        this.line = '';
        this.cursor = 0;
        this.#historyIndex = this.history.length;
        return { kind: 'interrupt' };
      case 'clear':
        return { kind: 'clear' };
      case 'eof':
        if (this.line === '') return { kind: 'eof' };
        return this.#deleteRight();
      case 'search':
        this.#search = { query: '', at: -1, failed: false, before: { line: this.line, cursor: this.cursor } };
        return { kind: 'edit' };
      case 'backspace': {
        if (this.cursor === 0) return { kind: 'none' };
        const from = this.#previous(this.cursor);
        this.line = this.line.slice(0, from) + this.line.slice(this.cursor);
        this.cursor = from;
        return { kind: 'edit' };
      }
      case 'delete':
        return this.#deleteRight();
      case 'left':
        return this.#moveTo(this.#previous(this.cursor));
      case 'right':
        return this.#moveTo(this.#next(this.cursor));
      case 'home':
        return this.#moveTo(0);
      case 'end':
        return this.#moveTo(this.line.length);
      case 'word-left':
        return this.#moveTo(this.#wordStart(this.cursor));
      case 'word-right':
        return this.#moveTo(this.#wordEnd(this.cursor));
      case 'kill-word':
        return this.#kill(this.#wordStart(this.cursor, /\s/), this.cursor);
      case 'kill-word-right':
        return this.#kill(this.cursor, this.#wordEnd(this.cursor));
      case 'kill-to-start':
        return this.#kill(0, this.cursor);
      case 'kill-to-end':
        return this.#kill(this.cursor, this.line.length);
      case 'yank':
        return this.insert(this.#killed);
      case 'up':
        return this.#recall(-1);
      case 'down':
        return this.#recall(1);
      case 'abort':
      case 'escape':
        return { kind: 'none' };
    }
    if (data.startsWith('\x1b')) return { kind: 'none' }; // an escape we do not handle
    return this.insert([...data].filter((ch) => ch >= ' ' || ch === '\t').join(''));
  }

  /** Inserts `text` at the cursor. */
  insert(text: string): EditResult {
    if (text === '') return { kind: 'none' };
    this.line = this.line.slice(0, this.cursor) + text + this.line.slice(this.cursor);
    this.cursor += text.length;
    return { kind: 'edit' };
  }

  /** Adds a submitted line to the history (not a blank one, nor the last one again). */
  remember(line: string): void {
    if (line.trim() !== '' && this.history[this.history.length - 1] !== line) {
      this.history.push(line);
      if (this.history.length > this.maxHistory) this.history.shift();
    }
    this.#historyIndex = this.history.length;
  }

  #moveTo(cursor: number): EditResult {
    if (cursor === this.cursor) return { kind: 'none' };
    this.cursor = cursor;
    return { kind: 'edit' };
  }

  #deleteRight(): EditResult {
    if (this.cursor === this.line.length) return { kind: 'none' };
    this.line = this.line.slice(0, this.cursor) + this.line.slice(this.#next(this.cursor));
    return { kind: 'edit' };
  }

  #kill(from: number, to: number): EditResult {
    if (from === to) return { kind: 'none' };
    this.#killed = this.line.slice(from, to);
    this.line = this.line.slice(0, from) + this.line.slice(to);
    this.cursor = from;
    return { kind: 'edit' };
  }

  #previous(at: number): number {
    const starts = boundaries(this.line);
    for (let i = starts.length - 1; i >= 0; i--) if (starts[i] < at) return starts[i];
    return 0;
  }

  #next(at: number): number {
    return boundaries(this.line).find((start) => start > at) ?? this.line.length;
  }

  /** Where the word before `at` starts: back over separators, then over the word.
   * Words are letters and digits (Alt-B), or anything but `separator` (Ctrl-W). */
  #wordStart(at: number, separator = /[^\p{L}\p{N}_]/u): number {
    let i = at;
    while (i > 0 && separator.test(this.line[i - 1])) i--;
    while (i > 0 && !separator.test(this.line[i - 1])) i--;
    return i;
  }

  #wordEnd(at: number): number {
    const separator = /[^\p{L}\p{N}_]/u;
    let i = at;
    while (i < this.line.length && separator.test(this.line[i])) i++;
    while (i < this.line.length && !separator.test(this.line[i])) i++;
    return i;
  }

  #recall(step: number): EditResult {
    const next = this.#historyIndex + step;
    if (next < 0 || next > this.history.length) return { kind: 'none' };
    if (this.#historyIndex === this.history.length) this.#draft = this.line;
    this.#historyIndex = next;
    this.line = next === this.history.length ? this.#draft : this.history[next];
    this.cursor = this.line.length;
    return { kind: 'edit' };
  }

  /** A key while Ctrl-R searches, as readline: typing narrows the search, Ctrl-R finds
   * an older match, Enter runs the match, Ctrl-G or Ctrl-C gives up (the line comes
   * back), and any other key takes the match as the line and does its own work. */
  #searchKey(data: string): EditResult {
    const search = this.#search!;
    const action = KEYS[data];
    switch (action) {
      case 'search':
        this.#find(search, search.at === -1 ? this.history.length - 1 : search.at - 1);
        return { kind: 'edit' };
      case 'backspace':
        search.query = [...search.query].slice(0, -1).join('');
        this.#find(search, this.history.length - 1);
        return { kind: 'edit' };
      case 'abort':
      case 'interrupt':
        this.#search = null;
        this.line = search.before.line;
        this.cursor = search.before.cursor;
        return action === 'interrupt' ? this.key('\x03') : { kind: 'edit' };
      case 'escape':
        this.#search = null;
        return { kind: 'edit' };
      case undefined:
        if (!data.startsWith('\x1b') && [...data].every((ch) => ch >= ' ')) {
          search.query += data;
          this.#find(search, search.at === -1 ? this.history.length - 1 : search.at);
          return { kind: 'edit' };
        }
    }
    // Any other key: the search ends with its match as the line, and the key acts on it.
    this.#search = null;
    this.#historyIndex = this.history.length;
    const result = this.key(data);
    return result.kind === 'none' ? { kind: 'edit' } : result;
  }

  /** The newest entry at or before `from` holding the query: shown with the cursor on it. */
  #find(search: Search, from: number): void {
    if (search.query === '') {
      search.failed = false;
      return;
    }
    for (let i = Math.min(from, this.history.length - 1); i >= 0; i--) {
      const where = this.history[i].lastIndexOf(search.query);
      if (where >= 0) {
        search.at = i;
        search.failed = false;
        this.line = this.history[i];
        this.cursor = where;
        return;
      }
    }
    search.failed = true;
  }
}

/** Splits terminal input into keys: escape sequences stay whole, text is split into
 * characters so that a paste with newlines submits line by line. */
export function splitKeys(data: string): string[] {
  const keys: string[] = [];
  let i = 0;
  while (i < data.length) {
    if (data[i] === '\x1b') {
      const match = /^\x1b(\[[0-9;]*[A-Za-z~]|O[A-Za-z]|[\s\S])?/.exec(data.slice(i));
      const seq = match ? match[0] : '\x1b';
      keys.push(seq);
      i += seq.length;
    } else if (data[i] === '\n') {
      keys.push('\r'); // a pasted newline submits like Enter
      i++;
    } else {
      let j = i;
      while (j < data.length && data[j] >= ' ' && data[j] !== '\x7f') j++;
      if (j > i) {
        keys.push(data.slice(i, j));
        i = j;
      } else {
        keys.push(data[i]);
        i++;
      }
    }
  }
  return keys;
}
