// The editor: a file of the project in CodeMirror 6, saved with the button or Ctrl-S,
// with a diff view of the unsaved changes against the file as stored. A file the agent
// changes while it is open is reloaded, unless it has unsaved edits (then it says so).

import type { Sandbox } from 'sandtab';
import type { CodeEditor } from './code-editor';

/** Files larger than this are not opened (an editor is not a hex viewer). */
const MAX_EDIT_BYTES = 2 << 20;

export const darkTheme = () => document.documentElement.dataset.theme === 'dark';

export class EditorPanel {
  readonly #host: HTMLElement;
  readonly #path: HTMLElement;
  readonly #status: HTMLElement;
  readonly #save: HTMLButtonElement;
  readonly #diffButton: HTMLButtonElement;
  /** CodeMirror, once the editor has opened (see `#editor`). */
  #loaded: CodeEditor | null = null;
  #loading: Promise<CodeEditor> | null = null;
  #file: string | null = null;
  /** The file's contents as stored, to tell unsaved edits and for the diff. */
  #saved = '';
  #showDiff = false;

  constructor(
    root: HTMLElement,
    readonly sandbox: () => Sandbox | null,
    readonly onSaved: () => void,
  ) {
    this.#host = root.querySelector('.editor-host')!;
    this.#path = root.querySelector('.editor-path')!;
    this.#status = root.querySelector('.editor-status')!;
    this.#save = root.querySelector('#editor-save')!;
    this.#diffButton = root.querySelector('#editor-diff')!;
    this.#save.addEventListener('click', () => void this.save());
    this.#diffButton.addEventListener('click', () => this.#toggleDiff());
    this.#update();
  }

  /** CodeMirror, loaded the first time the editor is shown or a file opened. */
  #editor(): Promise<CodeEditor> {
    this.#loading ??= (async () => {
      this.#say('Loading the editor…');
      try {
        const { CodeEditor } = await import('./code-editor');
        this.#loaded = new CodeEditor(this.#host, darkTheme(), () => this.#update(), () => void this.save());
        this.#say('');
        return this.#loaded;
      } catch (err) {
        this.#loading = null;
        this.#say(`Could not load the editor: ${err instanceof Error ? err.message : String(err)}`, true);
        throw err;
      }
    })();
    return this.#loading;
  }

  get dirty(): boolean {
    return this.#file !== null && this.#loaded !== null && this.#loaded.text !== this.#saved;
  }

  get path(): string | null {
    return this.#file;
  }

  #update(): void {
    this.#path.textContent = this.#file ?? 'No file open: click a file in the Files panel';
    this.#save.disabled = !this.dirty;
    this.#diffButton.disabled = this.#file === null;
    this.#diffButton.setAttribute('aria-pressed', String(this.#showDiff));
    this.#path.classList.toggle('dirty', this.dirty);
  }

  #say(text: string, isError = false): void {
    this.#status.textContent = text;
    this.#status.classList.toggle('error', isError);
  }

  async #readText(path: string): Promise<string | null> {
    const sandbox = this.sandbox();
    if (!sandbox) return null;
    const bytes = await sandbox.readFile(path);
    if (bytes.length > MAX_EDIT_BYTES) throw new Error(`${path} is ${bytes.length} bytes: too large to edit here`);
    if (bytes.includes(0)) throw new Error(`${path} is a binary file`);
    return new TextDecoder().decode(bytes);
  }

  async open(path: string): Promise<void> {
    if (this.dirty && path !== this.#file && !confirm(`${this.#file} has unsaved changes. Open ${path} and drop them?`)) return;
    try {
      const editor = await this.#editor();
      const text = await this.#readText(path);
      if (text === null) return;
      this.#file = path;
      this.#saved = text;
      this.#showDiff = false;
      editor.load(text, path);
      this.#say('');
    } catch (err) {
      this.#say(`Could not open ${path}: ${err instanceof Error ? err.message : String(err)}`, true);
    }
    this.#update();
  }

  async save(): Promise<void> {
    const sandbox = this.sandbox();
    if (!sandbox || this.#file === null || this.#loaded === null) return;
    const text = this.#loaded.text;
    try {
      await sandbox.writeFile(this.#file, text);
      this.#saved = text;
      if (this.#showDiff) this.#loaded.diffAgainst(text);
      this.#say(`Saved ${this.#file}.`);
      this.onSaved();
    } catch (err) {
      this.#say(`Could not save: ${err instanceof Error ? err.message : String(err)}`, true);
    }
    this.#update();
  }

  #toggleDiff(): void {
    if (this.#loaded === null) return;
    this.#showDiff = !this.#showDiff;
    this.#loaded.diffAgainst(this.#showDiff ? this.#saved : null);
    this.#update();
  }

  /** The files may have changed (a command, an agent step): follow the open file. */
  filesChanged(): void {
    const path = this.#file;
    if (path === null) return;
    void this.#readText(path).then(
      (text) => {
        if (text === null || text === this.#saved || path !== this.#file) return;
        if (this.dirty) {
          this.#say(`${path} changed on disk; your unsaved edits are kept (Save overwrites it).`, true);
          return;
        }
        this.#saved = text;
        this.#loaded?.replace(text);
        this.#say(`${path} was changed; reloaded.`);
        this.#update();
      },
      () => this.#say(`${path} is gone from the project.`, true),
    );
  }

  projectChanged(): void {
    this.#file = null;
    this.#saved = '';
    this.#showDiff = false;
    this.#loaded?.load('');
    this.#say('');
    this.#update();
  }

  themeChanged(): void {
    this.#loaded?.setDark(darkTheme());
  }

  show(): void {
    if (this.#loaded) this.#loaded.measure();
    else void this.#editor().catch(() => {});
  }
}
