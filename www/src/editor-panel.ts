// The editor: files of the project in CodeMirror 6, one tab each, saved with the button or
// Ctrl-S, with a diff view of the unsaved changes against the file as stored. A tab keeps
// its text, selection and history while another is shown. A file the agent changes while
// it is open is reloaded, unless it has unsaved edits (then it says so).

import type { Sandbox } from 'sandtab';
import type { EditorState } from '@codemirror/state';
import type { CodeEditor } from './code-editor';

/** Files larger than this are not opened (an editor is not a hex viewer). */
const MAX_EDIT_BYTES = 2 << 20;

export const darkTheme = () => document.documentElement.dataset.theme === 'dark';

/** An open file. */
interface Tab {
  path: string;
  /** Its contents as stored, to tell unsaved edits and for the diff. */
  saved: string;
  /** Its editing state while another tab is shown (null while it is the one shown). */
  kept: EditorState | null;
  showDiff: boolean;
}

export class EditorPanel {
  readonly #host: HTMLElement;
  readonly #tabStrip: HTMLElement;
  readonly #path: HTMLElement;
  readonly #status: HTMLElement;
  readonly #save: HTMLButtonElement;
  readonly #diffButton: HTMLButtonElement;
  /** CodeMirror, once the editor has opened (see `#editor`). */
  #loaded: CodeEditor | null = null;
  #loading: Promise<CodeEditor> | null = null;
  #tabs: Tab[] = [];
  #active: Tab | null = null;

  constructor(
    root: HTMLElement,
    readonly sandbox: () => Sandbox | null,
    readonly onSaved: () => void,
  ) {
    this.#host = root.querySelector('.editor-host')!;
    this.#tabStrip = root.querySelector('.editor-tabs')!;
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

  /** The text a tab holds now. */
  #textOf(tab: Tab): string {
    if (!this.#loaded) return tab.saved;
    return tab.kept ? this.#loaded.textOf(tab.kept) : this.#loaded.text;
  }

  #isDirty(tab: Tab): boolean {
    return this.#textOf(tab) !== tab.saved;
  }

  /** Whether the file shown has unsaved edits. */
  get dirty(): boolean {
    return this.#active !== null && this.#isDirty(this.#active);
  }

  get path(): string | null {
    return this.#active?.path ?? null;
  }

  #update(): void {
    const tab = this.#active;
    this.#path.textContent = tab?.path ?? 'No file open: click a file in the Files panel';
    this.#save.disabled = !this.dirty;
    this.#diffButton.disabled = tab === null;
    this.#diffButton.setAttribute('aria-pressed', String(tab?.showDiff ?? false));
    this.#path.classList.toggle('dirty', this.dirty);
    this.#drawTabs();
  }

  /** The tab strip: one tab per open file (a dot when it has unsaved edits), each with
   * its close button. */
  #drawTabs(): void {
    const tabs = this.#tabs.map((tab) => {
      const item = document.createElement('div');
      item.className = 'editor-tab';
      const button = document.createElement('button');
      button.type = 'button';
      button.setAttribute('role', 'tab');
      button.setAttribute('aria-selected', String(tab === this.#active));
      button.title = tab.path;
      button.textContent = `${tab.path.slice(tab.path.lastIndexOf('/') + 1)}${this.#isDirty(tab) ? ' •' : ''}`;
      button.addEventListener('click', () => void this.open(tab.path));
      const close = document.createElement('button');
      close.type = 'button';
      close.className = 'tab-close';
      close.setAttribute('aria-label', `Close ${tab.path}`);
      close.textContent = '×';
      close.addEventListener('click', () => this.close(tab.path));
      item.append(button, close);
      return item;
    });
    this.#tabStrip.replaceChildren(...tabs);
    this.#tabStrip.hidden = tabs.length === 0;
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

  /** Shows `tab`, putting the one shown away with its editing state. */
  #show(editor: CodeEditor, tab: Tab): void {
    if (this.#active === tab) return;
    if (this.#active) this.#active.kept = editor.snapshot();
    if (tab.kept) editor.restore(tab.kept);
    tab.kept = null;
    this.#active = tab;
  }

  /** Opens `path` in a tab of its own, or shows its tab if it has one. */
  async open(path: string): Promise<void> {
    try {
      const editor = await this.#editor();
      const open = this.#tabs.find((tab) => tab.path === path);
      if (open) {
        this.#show(editor, open);
      } else {
        const text = await this.#readText(path);
        if (text === null) return;
        const tab: Tab = { path, saved: text, kept: null, showDiff: false };
        if (this.#active) this.#active.kept = editor.snapshot();
        editor.load(text, path);
        this.#tabs.push(tab);
        this.#active = tab;
      }
      this.#say('');
    } catch (err) {
      this.#say(`Could not open ${path}: ${err instanceof Error ? err.message : String(err)}`, true);
    }
    this.#update();
  }

  /** Closes the tab of `path` (asking first if it has unsaved edits). */
  close(path: string): void {
    const index = this.#tabs.findIndex((tab) => tab.path === path);
    const tab = this.#tabs[index];
    if (!tab || !this.#loaded) return;
    if (this.#isDirty(tab) && document.body.dataset.confirm !== 'off' && !confirm(`${path} has unsaved changes. Close it and drop them?`)) return;
    this.#tabs.splice(index, 1);
    if (tab === this.#active) {
      this.#active = null;
      const next = this.#tabs[Math.min(index, this.#tabs.length - 1)];
      if (next) this.#show(this.#loaded, next);
      else this.#loaded.load('');
    }
    this.#update();
  }

  async save(): Promise<void> {
    const sandbox = this.sandbox();
    const tab = this.#active;
    if (!sandbox || !tab || !this.#loaded) return;
    const text = this.#loaded.text;
    try {
      await sandbox.writeFile(tab.path, text);
      tab.saved = text;
      if (tab.showDiff) this.#loaded.diffAgainst(text);
      this.#say(`Saved ${tab.path}.`);
      this.onSaved();
    } catch (err) {
      this.#say(`Could not save: ${err instanceof Error ? err.message : String(err)}`, true);
    }
    this.#update();
  }

  #toggleDiff(): void {
    const tab = this.#active;
    if (!this.#loaded || !tab) return;
    tab.showDiff = !tab.showDiff;
    this.#loaded.diffAgainst(tab.showDiff ? tab.saved : null);
    this.#update();
  }

  /** The files may have changed (a command, an agent step): follow the open ones. */
  filesChanged(): void {
    for (const tab of [...this.#tabs]) {
      void this.#readText(tab.path).then(
        (text) => {
          if (text === null || text === tab.saved || !this.#tabs.includes(tab)) return;
          if (this.#isDirty(tab)) {
            if (tab === this.#active) this.#say(`${tab.path} changed on disk; your unsaved edits are kept (Save overwrites it).`, true);
            return;
          }
          tab.saved = text;
          if (tab === this.#active) {
            this.#loaded?.replace(text);
            this.#say(`${tab.path} was changed; reloaded.`);
          } else {
            // Shown again from the file as it is now.
            void this.#reloadWhenShown(tab, text);
          }
          this.#update();
        },
        () => {
          // Gone (deleted, renamed): its tab goes too, unless it holds unsaved edits.
          if (!this.#tabs.includes(tab)) return;
          if (this.#isDirty(tab)) {
            if (tab === this.#active) this.#say(`${tab.path} is gone from the project; Save writes it again.`, true);
          } else {
            this.#say(`${tab.path} is gone from the project: its tab was closed.`);
            this.close(tab.path);
          }
        },
      );
    }
  }

  /** A tab put away whose file changed: its kept state is made from the new text. */
  async #reloadWhenShown(tab: Tab, text: string): Promise<void> {
    const editor = await this.#editor();
    const shown = this.#active;
    if (shown === tab) return;
    const keptShown = editor.snapshot();
    editor.load(text, tab.path);
    tab.kept = editor.snapshot();
    editor.restore(keptShown);
  }

  projectChanged(): void {
    this.#tabs = [];
    this.#active = null;
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
