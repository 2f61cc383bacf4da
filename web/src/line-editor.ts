// The terminal's line editing, kept apart from xterm.js so it is plain logic: a line
// with a cursor, and a history walked with up/down.

export type EditResult =
  | { kind: 'edit' } // the line or cursor changed: redraw
  | { kind: 'submit'; line: string }
  | { kind: 'interrupt' } // Ctrl-C
  | { kind: 'clear' } // Ctrl-L
  | { kind: 'none' };

const KEYS: Record<string, string> = {
  '\x1b[A': 'up', '\x1bOA': 'up',
  '\x1b[B': 'down', '\x1bOB': 'down',
  '\x1b[C': 'right', '\x1bOC': 'right',
  '\x1b[D': 'left', '\x1bOD': 'left',
  '\x1b[H': 'home', '\x1bOH': 'home', '\x1b[1~': 'home', '\x01': 'home',
  '\x1b[F': 'end', '\x1bOF': 'end', '\x1b[4~': 'end', '\x05': 'end',
  '\x1b[3~': 'delete',
  '\x7f': 'backspace', '\b': 'backspace',
  '\r': 'enter',
  '\x03': 'interrupt',
  '\x0c': 'clear',
  '\x15': 'kill-line',
};

export class LineEditor {
  line = '';
  cursor = 0;
  readonly history: string[] = [];
  #historyIndex = 0;
  #draft = '';

  constructor(readonly maxHistory = 1000) {}

  /** Applies one key (an escape sequence or a single character). */
  key(data: string): EditResult {
    const action = KEYS[data];
    switch (action) {
      case 'enter': {
        const line = this.line;
        if (line.trim() !== '' && this.history[this.history.length - 1] !== line) {
          this.history.push(line);
          if (this.history.length > this.maxHistory) this.history.shift();
        }
        this.#historyIndex = this.history.length;
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
      case 'backspace':
        if (this.cursor === 0) return { kind: 'none' };
        this.line = this.line.slice(0, this.cursor - 1) + this.line.slice(this.cursor);
        this.cursor--;
        return { kind: 'edit' };
      case 'delete':
        if (this.cursor === this.line.length) return { kind: 'none' };
        this.line = this.line.slice(0, this.cursor) + this.line.slice(this.cursor + 1);
        return { kind: 'edit' };
      case 'left':
        if (this.cursor === 0) return { kind: 'none' };
        this.cursor--;
        return { kind: 'edit' };
      case 'right':
        if (this.cursor === this.line.length) return { kind: 'none' };
        this.cursor++;
        return { kind: 'edit' };
      case 'home':
        this.cursor = 0;
        return { kind: 'edit' };
      case 'end':
        this.cursor = this.line.length;
        return { kind: 'edit' };
      case 'kill-line':
        this.line = this.line.slice(this.cursor);
        this.cursor = 0;
        return { kind: 'edit' };
      case 'up':
        return this.#recall(-1);
      case 'down':
        return this.#recall(1);
    }
    if (data.startsWith('\x1b')) return { kind: 'none' }; // an escape we do not handle
    const printable = [...data].filter((ch) => ch >= ' ' || ch === '\t').join('');
    if (printable === '') return { kind: 'none' };
    this.line = this.line.slice(0, this.cursor) + printable + this.line.slice(this.cursor);
    this.cursor += printable.length;
    return { kind: 'edit' };
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
}

/** Splits terminal input into keys: escape sequences stay whole, text is split into
 * characters so that a paste with newlines submits line by line. */
export function splitKeys(data: string): string[] {
  const keys: string[] = [];
  let i = 0;
  while (i < data.length) {
    if (data[i] === '\x1b') {
      const match = /^\x1b(\[[0-9;]*[A-Za-z~]|O[A-Za-z]|.)?/.exec(data.slice(i));
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
