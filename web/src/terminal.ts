// <sandtab-terminal>: a terminal on a sandbox, built on xterm.js. Line editing and
// history are local (line-editor.ts); each submitted line runs as one `exec`, its output
// streams in as it is written, and Ctrl-C interrupts it (see `Sandbox.interrupt`).

import { Terminal } from '@xterm/xterm';
import { FitAddon } from '@xterm/addon-fit';
import { Sandbox, type SandboxProgressEvent } from './sandbox.js';
import { LineEditor, splitKeys } from './line-editor.js';
import { progressLine } from './progress-line.js';
import { cellWidth, unicodeProvider } from './cell-width.js';
import { XTERM_CSS } from './xterm-css.js';
import type { ProgressEvent, SaveError, StorageKind } from './types.js';

const PROMPT = '\x1b[1;32magent@sandtab\x1b[0m:\x1b[1;34m$\x1b[0m ';
/** Cells the prompt takes on the screen (without its colour codes). */
const PROMPT_WIDTH = 'agent@sandtab:$ '.length;
/** The prompt of a command's next line (bash's `PS2`). */
const CONTINUATION = '> ';
/** Lines of history kept per sandbox name, in the page's localStorage. */
const HISTORY_KEPT = 1000;
const historyKey = (name: string) => `sandtab-terminal-history:${name}`;
/** Choices a second Tab lists at most. */
const LISTED_AT_MOST = 200;

/** The longest start all of `words` share. */
function commonPrefix(words: string[]): string {
  let prefix = words[0] ?? '';
  for (const word of words) {
    while (!word.startsWith(prefix)) prefix = prefix.slice(0, -1);
  }
  return prefix;
}
const TEXT = new TextEncoder();
const TEXT_OUT = new TextDecoder();

/** Fired after each command with `{ command, exitCode }`. */
export interface CommandEndDetail {
  command: string;
  exitCode: number;
  /** Set when the command's file changes could not be saved (they are kept in memory). */
  saveError: SaveError | null;
}

/** The colour themes, chosen with the `theme` attribute (`dark`, the default, or `light`). */
const THEMES = {
  dark: { background: '#1e1e1e', foreground: '#d4d4d4', cursor: '#d4d4d4', selectionBackground: '#264f78' },
  light: {
    background: '#ffffff',
    foreground: '#1e1e1e',
    cursor: '#1e1e1e',
    selectionBackground: '#add6ff',
    // The ANSI colours a dark theme uses are unreadable on white: darker ones.
    green: '#00802b',
    brightGreen: '#00802b',
    blue: '#0451a5',
    brightBlue: '#0451a5',
    yellow: '#795e26',
    brightYellow: '#795e26',
    cyan: '#0e7490',
    brightCyan: '#0e7490',
    red: '#c72e0f',
    brightRed: '#c72e0f',
    magenta: '#a626a4',
    brightMagenta: '#a626a4',
    white: '#555555',
    brightWhite: '#333333',
  },
};

function themeFor(name: string | null) {
  return name === 'light' ? THEMES.light : THEMES.dark;
}

function injectStyles(): void {
  if (document.getElementById('sandtab-xterm-css')) return;
  const style = document.createElement('style');
  style.id = 'sandtab-xterm-css';
  style.textContent = `${XTERM_CSS}\nsandtab-terminal{display:block;min-height:12em}`;
  document.head.append(style);
}

export class SandtabTerminal extends HTMLElement {
  #sandbox: Sandbox | null = null;
  /** The terminal started its sandbox itself (and ends it when removed). */
  #owned = false;
  /** Counts removals, so a start that finishes after one knows it is too late. */
  #connections = 0;
  #term: Terminal | null = null;
  #editor = new LineEditor(HISTORY_KEPT);
  /** The lines of a command that goes on (shown with the `> ` prompt), and whether
   * the terminal waits for the runtime's answer (whether the last line completed it, a
   * Tab's choices): keys typed meanwhile wait in `#typeAhead`. */
  #continued: string[] = [];
  #checking = false;
  /** Tabs pressed in a row (the second lists the choices). */
  #tabs = 0;
  /** The sandbox name the history is kept under (null until known). */
  #historyName: string | null = null;
  #running = false;
  /** The running command's stdin, and the line being typed to it. */
  #stdin: ReadableStreamDefaultController<string> | null = null;
  #cooked = '';
  /** What was sent to the running command's stdin, and whether Ctrl-C dropped it. */
  #sent = '';
  #interrupted = false;
  #typeAhead: string[] = [];
  #endsWithNewline = true;
  /** The last thing written was the `^C` of an interrupt. */
  #caretC = false;
  /** The program whose download the running command waits for, shown on the last line
   * until it is ready or output comes. */
  #statusOf: string | null = null;
  #ready: Promise<void> | null = null;
  #resizeObserver: ResizeObserver | null = null;
  #escaped = false;
  /** Rows from the prompt's row down to the cursor, and to the input's last row. */
  #inputRow = 0;
  #inputEndRow = 0;

  /** The element's API version: attributes `theme`, `name`, `storage`; properties `sandbox`, `ready`,
   * `running`, `selection`, `size`; methods `run`, `focus`, `copySelection`, `paste`;
   * event `command-end`. Raised when any of these changes incompatibly. */
  static readonly apiVersion = 1;

  /** The sandbox the terminal runs commands in. Set it before the element is connected
   * to give it one; otherwise it opens the sandbox its `name` and `storage` attributes
   * say (`"default"`, IndexedDB), sharing it with the page if the page has it open. */
  get sandbox(): Sandbox | null {
    return this.#sandbox;
  }
  set sandbox(sandbox: Sandbox | null) {
    this.#sandbox = sandbox;
  }

  static observedAttributes = ['theme'];

  /** `theme="light"` or `theme="dark"` (the default) switches the colours at once. */
  attributeChangedCallback(name: string): void {
    if (name === 'theme' && this.#term) this.#term.options.theme = themeFor(this.getAttribute('theme'));
  }

  /** Resolves when the terminal shows its first prompt. */
  get ready(): Promise<void> {
    return this.#ready ?? Promise.resolve();
  }

  /** Whether a command is running. */
  get running(): boolean {
    return this.#running;
  }

  connectedCallback(): void {
    if (this.#term) return;
    injectStyles();
    const term = new Terminal({
      convertEol: true,
      cursorBlink: true,
      fontFamily: 'ui-monospace, "DejaVu Sans Mono", Menlo, Consolas, monospace',
      fontSize: 14,
      scrollback: 5000,
      theme: themeFor(this.getAttribute('theme')),
      // For `unicode`: the cell widths the line editor uses too.
      allowProposedApi: true,
    });
    term.unicode.register(unicodeProvider);
    term.unicode.activeVersion = unicodeProvider.version;
    this.#term = term;
    const fit = new FitAddon();
    term.loadAddon(fit);
    term.open(this);
    // Fill the element, and follow it when it is resized.
    const refit = () => {
      if (this.clientWidth > 0 && this.clientHeight > 0) fit.fit();
    };
    this.#resizeObserver = new ResizeObserver(refit);
    this.#resizeObserver.observe(this);
    refit();
    term.attachCustomKeyEventHandler((event) => this.#shortcut(event));
    term.onData((data) => this.#input(data));
    this.#ready = this.#start();
  }

  /** Removed from the page (a framework's `v-if`, a conditional render): a sandbox the
   * terminal started itself is saved and ended, so its worker and its lock go (a page's
   * own sandbox is left to the page). Put back, the terminal starts again. */
  disconnectedCallback(): void {
    this.#connections++;
    this.#resizeObserver?.disconnect();
    this.#resizeObserver = null;
    this.#term?.dispose();
    this.#term = null;
    this.#stdin = null;
    if (this.#owned && this.#sandbox) {
      const sandbox = this.#sandbox;
      this.#sandbox = null;
      this.#owned = false;
      // Saves, and ends the worker unless the page shares this sandbox too.
      void sandbox.close().catch(() => {});
    }
  }

  /** The selected text ('' when nothing is selected). */
  get selection(): string {
    return this.#term?.getSelection() ?? '';
  }

  /** Copies the selection to the clipboard; resolves to whether there was one. */
  async copySelection(): Promise<boolean> {
    const text = this.selection;
    if (!text) return false;
    await navigator.clipboard.writeText(text);
    return true;
  }

  /** Types `text` as if pasted (each line ends with Enter runs). */
  paste(text: string): void {
    this.#term?.paste(text);
  }

  /** The terminal's size in character cells (it follows the element's size). */
  get size(): { cols: number; rows: number } {
    return { cols: this.#term?.cols ?? 0, rows: this.#term?.rows ?? 0 };
  }

  // Keys the terminal answers itself, before xterm.js turns them into input. Returning
  // false leaves the key to the browser (its copy, paste or focus move).
  #shortcut(event: KeyboardEvent): boolean {
    if (event.type !== 'keydown') return true;
    const key = event.key.toLowerCase();
    const mod = event.ctrlKey || event.metaKey;
    // Escape, then Tab (or Shift+Tab), moves the focus out: the way out for keyboard-only
    // use, since Tab itself belongs to the shell.
    if (event.key === 'Tab' && this.#escaped) {
      this.#escaped = false;
      return false;
    }
    this.#escaped = event.key === 'Escape';
    // Copy: Ctrl+Shift+C, Cmd+C, or Ctrl+C while text is selected (otherwise Ctrl+C
    // stops the command, as in every terminal).
    if (mod && key === 'c' && (event.shiftKey || event.metaKey || this.selection)) {
      event.preventDefault();
      void this.copySelection()
        .then(() => this.#term?.clearSelection())
        .catch(() => {});
      return false;
    }
    // Paste: Ctrl+Shift+V, Cmd+V, Ctrl+V: the browser's paste event, which xterm.js reads.
    if (mod && key === 'v') return false;
    return true;
  }

  /** Focuses the terminal for typing. */
  override focus(): void {
    this.#term?.focus();
  }

  /** Shows (or takes away) the download of a program the running command waits for. */
  #showProgress(term: Terminal, event: ProgressEvent): void {
    const waiting = event.waiting === true && (event.phase === 'fetch' || event.phase === 'compile');
    if (!waiting) {
      if (this.#statusOf === event.program) this.#clearStatus(term);
      return;
    }
    if (this.#statusOf === null && !this.#endsWithNewline) {
      // Output that did not end its line keeps it.
      term.write('\r\n');
      this.#endsWithNewline = true;
    }
    this.#statusOf = event.program;
    term.write(`\r\x1b[2K\x1b[2m${progressLine(event, term.cols - 1)}\x1b[0m`);
  }

  #clearStatus(term: Terminal): void {
    if (this.#statusOf === null) return;
    this.#statusOf = null;
    term.write('\r\x1b[2K');
  }

  /** Runs a line as if typed and submitted; resolves to its exit status. Throws if a
   * command is already running. */
  async run(line: string): Promise<number> {
    if (this.#running) throw new Error('sandtab-terminal: a command is already running');
    this.#term?.write(line + '\r\n');
    return this.#execute(line);
  }

  async #start(): Promise<void> {
    const term = this.#term!;
    if (!this.#sandbox) {
      term.write('Starting sandbox...');
      const connection = this.#connections;
      let sandbox: Sandbox;
      try {
        // A sandbox of that name the page has open (or is opening) is shared.
        const name = this.getAttribute('name') ?? undefined;
        const storage = (this.getAttribute('storage') ?? undefined) as StorageKind | undefined;
        sandbox = await Sandbox.create({ name, storage });
      } catch (err) {
        term.write(`\r\n\x1b[31msandtab: ${(err as Error).message}\x1b[0m\r\n`);
        throw err;
      }
      if (connection !== this.#connections) {
        // Removed while it started: nobody will use it.
        void sandbox.close().catch(() => {});
        return;
      }
      this.#sandbox = sandbox;
      this.#owned = true;
      term.write('\r\x1b[K');
    }
    await this.#loadHistory();
    term.write('sandtab: a sandbox in this tab. Ctrl-C stops a command.\r\n');
    term.write(PROMPT);
  }

  /** The history kept for this sandbox's name, from an earlier visit. */
  async #loadHistory(): Promise<void> {
    try {
      this.#historyName = (await this.#sandbox!.info()).name;
      const kept: unknown = JSON.parse(localStorage.getItem(historyKey(this.#historyName)) ?? '[]');
      if (Array.isArray(kept)) this.#editor.loadHistory(kept.filter((line): line is string => typeof line === 'string'));
    } catch {
      // No storage (a private window, Node) or unreadable: the history starts empty.
    }
  }

  #saveHistory(): void {
    if (this.#historyName === null) return;
    try {
      localStorage.setItem(historyKey(this.#historyName), JSON.stringify(this.#editor.history.slice(-HISTORY_KEPT)));
    } catch {
      // Full or refused: the history is kept for this visit only.
    }
  }

  #input(data: string): void {
    for (const key of splitKeys(data)) {
      if (this.#running) {
        if (key === '\x03') {
          // As a tty: echo `^C`; the program interrupted (CPython) goes on from there,
          // one that is not is stopped and the line ends after it.
          if (this.#term) this.#clearStatus(this.#term);
          this.#term?.write('^C');
          this.#endsWithNewline = false;
          this.#caretC = true;
          this.#sandbox?.interrupt();
          // As a tty flushes its input on an interrupt: nothing typed so far runs later.
          this.#typeAhead = [];
          this.#cooked = '';
          this.#interrupted = true;
        } else if (this.#stdin) {
          this.#stdinKey(key);
        } else {
          this.#typeAhead.push(key);
        }
        continue;
      }
      // Starting a command sets #running at once, and asking whether a line is a whole
      // command sets #checking: keys after Enter wait for either.
      if (this.#checking) this.#typeAhead.push(key);
      else this.#key(key);
    }
  }

  /** A key while a command runs: the terminal's line discipline, as a tty's cooked
   * mode. Keys are echoed and edited (Backspace, Ctrl-U) on a line that Enter sends to
   * the program reading the terminal (`python3`, its `input()`); Ctrl-D sends the line
   * without a newline, or, on an empty line, ends the input (end of file). */
  #stdinKey(key: string): void {
    const term = this.#term;
    const stdin = this.#stdin;
    if (!term || !stdin) return;
    if (key === '\r') {
      term.write('\r\n');
      this.#send(stdin, this.#cooked + '\n');
      this.#cooked = '';
    } else if (key === '\x04') {
      if (this.#cooked === '') {
        try {
          stdin.close();
        } catch {
          // Already ended.
        }
        this.#stdin = null;
      } else {
        this.#send(stdin, this.#cooked);
        this.#cooked = '';
      }
    } else if (key === '\x7f' || key === '\b') {
      const chars = [...this.#cooked];
      if (chars.length === 0) return;
      chars.pop();
      this.#cooked = chars.join('');
      term.write('\b \b');
    } else if (key === '\x15') {
      term.write('\b \b'.repeat([...this.#cooked].length));
      this.#cooked = '';
    } else if (!key.startsWith('\x1b') && key >= ' ') {
      this.#cooked += key;
      term.write(key);
    }
  }

  #send(stdin: ReadableStreamDefaultController<string>, text: string): void {
    try {
      stdin.enqueue(text);
      this.#sent += text;
    } catch {
      // The stream was ended under it (its exec failed): the line goes nowhere.
      this.#stdin = null;
    }
  }

  #key(key: string): void {
    const term = this.#term;
    if (!term) return;
    this.#tabs = key === '\t' ? this.#tabs + 1 : 0;
    const searching = this.#editor.searchPrompt !== null;
    if (key === '\t' && this.#editor.searchPrompt === null) {
      // Keys typed while the runtime answers wait for it, as a shell reads them after.
      this.#checking = true;
      void this.#complete(term, this.#tabs > 1).finally(() => {
        this.#checking = false;
        const waiting = this.#typeAhead;
        this.#typeAhead = [];
        for (const next of waiting) this.#input(next);
      });
      return;
    }
    const result = this.#editor.key(key);
    switch (result.kind) {
      case 'edit':
        this.#redraw();
        return;
      case 'submit':
        // A line found by Ctrl-R shows with the prompt again before it runs, as in bash.
        if (searching) this.#redraw({ line: result.line, cursor: result.line.length, searchPrompt: null });
        this.#saveHistory();
        // From wherever the cursor is in a wrapped line, to below its end.
        term.write(this.#toInputEnd() + '\r\n');
        this.#inputRow = this.#inputEndRow = 0;
        void this.#submit(term, result.line);
        return;
      case 'interrupt':
        // Also drops the lines of a command still going on.
        this.#continued = [];
        term.write(this.#toInputEnd() + '^C\r\n' + PROMPT);
        this.#inputRow = this.#inputEndRow = 0;
        return;
      case 'clear':
        term.clear();
        this.#inputRow = this.#inputEndRow = 0;
        this.#redraw();
        return;
      case 'eof':
      // At an empty prompt Ctrl-D is ignored, as with bash's `ignoreeof`: the terminal
      // has nothing to close.
      case 'none':
        return;
    }
  }

  /** Tab: completes the word before the cursor as far as the choices agree; when they
   * agree no further, a second Tab lists them (as bash does). */
  async #complete(term: Terminal, list: boolean): Promise<void> {
    const sandbox = this.#sandbox;
    if (!sandbox) return;
    const { line, cursor } = this.#editor;
    let answer: { word: string; candidates: string[] };
    try {
      answer = await sandbox.complete(line.slice(0, cursor));
    } catch {
      return; // busy (the page runs a command) or closed: Tab does nothing
    }
    if (this.#term !== term || this.#running || this.#editor.line !== line || this.#editor.cursor !== cursor) return;
    const { word, candidates } = answer;
    if (candidates.length === 0) {
      term.write('\x07');
      return;
    }
    const common = commonPrefix(candidates);
    if (common.length > word.length || candidates.length === 1) {
      const done = candidates.length === 1 && !common.endsWith('/');
      this.#editor.insert(common.slice(word.length) + (done ? ' ' : ''));
      this.#tabs = 0;
      this.#redraw();
      return;
    }
    if (!list) {
      term.write('\x07');
      return;
    }
    // Below the line, in columns, by their last part (as bash lists paths), then the
    // prompt and the line again.
    const shown = candidates.slice(0, LISTED_AT_MOST).map((c) => c.replace(/^.*\/(?=.)/, '').replace(/\\(.)/g, '$1'));
    const width = Math.max(...shown.map(cellWidth)) + 2;
    const columns = Math.max(1, Math.floor(term.cols / width));
    const rows = Math.ceil(shown.length / columns);
    let text = this.#toInputEnd() + '\r\n';
    for (let row = 0; row < rows; row++) {
      for (let column = 0; column < columns; column++) {
        const item = shown[column * rows + row];
        if (item !== undefined) text += item + ' '.repeat(Math.max(0, width - cellWidth(item)));
      }
      text = text.trimEnd() + '\r\n';
    }
    if (candidates.length > shown.length) text += `… and ${candidates.length - shown.length} more\r\n`;
    term.write(text);
    this.#inputRow = this.#inputEndRow = 0;
    this.#redraw();
  }

  /** The escape codes that move the cursor down to the input's last row. */
  #toInputEnd(): string {
    const down = this.#inputEndRow - this.#inputRow;
    return down > 0 ? `\x1b[${down}B` : '';
  }

  // Redraws the prompt and the line, which may wrap over several rows: back up to the
  // prompt's row, clear to the end of the screen, write it all, then put the cursor on
  // its cell. After exactly `cols` cells the cursor waits at the row's last cell (the
  // next character wraps), which `rowOf` counts as that row.
  #redraw(shown: Pick<LineEditor, 'line' | 'cursor' | 'searchPrompt'> = this.#editor): void {
    const term = this.#term;
    if (!term) return;
    const { line, cursor, searchPrompt } = shown;
    const prompt = searchPrompt ?? (this.#continued.length > 0 ? CONTINUATION : PROMPT);
    const promptWidth = prompt === PROMPT ? PROMPT_WIDTH : cellWidth(prompt);
    const cols = Math.max(1, term.cols);
    const rowOf = (cells: number) => (cells > 0 && cells % cols === 0 ? cells / cols - 1 : Math.floor(cells / cols));
    const end = promptWidth + cellWidth(line);
    const at = promptWidth + cellWidth(line.slice(0, cursor));
    const up = this.#inputRow > 0 ? `\x1b[${this.#inputRow}A` : '';
    let row = rowOf(end);
    this.#inputEndRow = row;
    let place = '';
    if (at < end) {
      const target = Math.floor(at / cols);
      if (row > target) place += `\x1b[${row - target}A`;
      place += `\x1b[${(at % cols) + 1}G`;
      row = target;
    }
    this.#inputRow = row;
    term.write(`${up}\r\x1b[J${prompt}${line}${place}`);
  }

  async #execute(line: string): Promise<number> {
    const term = this.#term;
    const sandbox = this.#sandbox;
    if (!term || !sandbox) return -1;
    this.#running = true;
    this.#endsWithNewline = true;
    this.#caretC = false;
    let exitCode = -1;
    let saveError: SaveError | null = null;
    let unread: string[] = [];
    this.#sent = '';
    this.#interrupted = false;
    // The command's stdin is the terminal: what is typed while it runs (see #stdinKey).
    const stdin = new ReadableStream<string>({
      start: (controller) => {
        this.#stdin = controller;
      },
    });
    // A program the command waits for shows its download on the last line.
    const onProgress = (event: SandboxProgressEvent) => {
      if (this.#term === term) this.#showProgress(term, event.detail);
    };
    sandbox.addEventListener('progress', onProgress);
    try {
      const result = await sandbox.exec(line, {
        stdin,
        tty: true,
        onOutput: (_stream, bytes) => {
          if (bytes.length === 0 || this.#term !== term) return;
          this.#clearStatus(term);
          // After `^C`, output starts on a line of its own (a program's message).
          if (this.#caretC && bytes[0] !== 0x0a) term.write('\r\n');
          this.#caretC = false;
          this.#endsWithNewline = bytes[bytes.length - 1] === 0x0a;
          term.write(bytes);
        },
      });
      exitCode = result.exitCode;
      saveError = result.saveError;
      // Lines typed while it ran that no program read are typed ahead for the prompt,
      // as a shell reads them after the command.
      if (!this.#interrupted) {
        const sent = TEXT.encode(this.#sent);
        const rest = TEXT_OUT.decode(sent.subarray(Math.min(result.stdinRead ?? sent.length, sent.length)));
        unread = splitKeys(rest.replaceAll('\n', '\r'));
      }
    } catch (err) {
      if (this.#term === term) {
        this.#clearStatus(term);
        term.write(`\x1b[31msandtab: ${(err as Error).message}\x1b[0m\r\n`);
      }
    } finally {
      sandbox.removeEventListener('progress', onProgress);
    }
    if (this.#term !== term) {
      // Removed while it ran (its own sandbox ended with it).
      this.#running = false;
      return exitCode;
    }
    this.#stdin = null;
    this.#clearStatus(term);
    if (this.#caretC) term.write('\r\n');
    else if (!this.#endsWithNewline) term.write('\x1b[7m%\x1b[0m\r\n');
    this.#caretC = false;
    this.#running = false;
    term.write(PROMPT);
    this.dispatchEvent(
      new CustomEvent<CommandEndDetail>('command-end', { detail: { command: line, exitCode, saveError }, bubbles: true }),
    );
    // A line typed and not sent stays, as type-ahead for the prompt.
    const pending = [...unread, ...this.#cooked, ...this.#typeAhead];
    this.#cooked = '';
    this.#typeAhead = [];
    this.#replay(pending);
    return exitCode;
  }

  /** Keys typed while the terminal was busy, typed again now. */
  #replay(keys: string[]): void {
    for (const key of keys) {
      if (this.#running || this.#checking) this.#typeAhead.push(key);
      else this.#key(key);
    }
  }

  /** Enter: a whole command runs; one that goes on (`for x in a b`, an open quote)
   * gets the `> ` prompt for its next line, as in bash, and runs once whole. A paste
   * of several lines goes the same way, line by line. */
  async #submit(term: Terminal, line: string): Promise<void> {
    const script = [...this.#continued, line].join('\n');
    if (script.trim() === '') {
      term.write(PROMPT);
      return;
    }
    this.#checking = true;
    let whole = true;
    try {
      whole = await this.#sandbox!.isComplete(script);
    } catch {
      // Closed or failed: run it, and let the run say what is wrong.
    }
    this.#checking = false;
    if (this.#term !== term) return;
    if (whole) {
      this.#continued = [];
      void this.#execute(script);
    } else {
      this.#continued.push(line);
      term.write(CONTINUATION);
    }
    // Keys typed while it was asked, as if typed now: to the command's stdin if it
    // started (as keys typed while it runs), else to the line.
    const waiting = this.#typeAhead;
    this.#typeAhead = [];
    for (const key of waiting) this.#input(key);
  }
}

if (!customElements.get('sandtab-terminal')) {
  customElements.define('sandtab-terminal', SandtabTerminal);
}

declare global {
  interface HTMLElementTagNameMap {
    'sandtab-terminal': SandtabTerminal;
  }
}
