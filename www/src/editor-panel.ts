// The editor: a file of the project in CodeMirror 6, saved with the button or Ctrl-S,
// with a diff view of the unsaved changes against the file as stored. A file the agent
// changes while it is open is reloaded, unless it has unsaved edits (then it says so).

import { basicSetup, EditorView } from 'codemirror';
import { Compartment, EditorState, type Extension } from '@codemirror/state';
import { keymap } from '@codemirror/view';
import { python } from '@codemirror/lang-python';
import { javascript } from '@codemirror/lang-javascript';
import { html } from '@codemirror/lang-html';
import { css } from '@codemirror/lang-css';
import { json } from '@codemirror/lang-json';
import { oneDark } from '@codemirror/theme-one-dark';
import { unifiedMergeView } from '@codemirror/merge';
import type { Sandbox } from 'sandtab';

/** Files larger than this are not opened (an editor is not a hex viewer). */
const MAX_EDIT_BYTES = 2 << 20;

function languageFor(path: string): Extension {
  const ext = path.slice(path.lastIndexOf('.') + 1).toLowerCase();
  switch (ext) {
    case 'py':
      return python();
    case 'js':
    case 'mjs':
    case 'cjs':
      return javascript();
    case 'ts':
      return javascript({ typescript: true });
    case 'jsx':
    case 'tsx':
      return javascript({ jsx: true, typescript: ext === 'tsx' });
    case 'html':
    case 'htm':
      return html();
    case 'css':
      return css();
    case 'json':
      return json();
    default:
      return [];
  }
}

export const darkTheme = () => document.documentElement.dataset.theme === 'dark';

export class EditorPanel {
  readonly #view: EditorView;
  readonly #language = new Compartment();
  readonly #diff = new Compartment();
  readonly #theme = new Compartment();
  readonly #path: HTMLElement;
  readonly #status: HTMLElement;
  readonly #save: HTMLButtonElement;
  readonly #diffButton: HTMLButtonElement;
  #file: string | null = null;
  /** The file's contents as stored, to tell unsaved edits and for the diff. */
  #saved = '';
  #showDiff = false;

  constructor(
    root: HTMLElement,
    readonly sandbox: () => Sandbox | null,
    readonly onSaved: () => void,
  ) {
    this.#path = root.querySelector('.editor-path')!;
    this.#status = root.querySelector('.editor-status')!;
    this.#save = root.querySelector('#editor-save')!;
    this.#diffButton = root.querySelector('#editor-diff')!;
    this.#view = new EditorView({
      parent: root.querySelector('.editor-host')!,
      state: this.#state(''),
    });
    this.#save.addEventListener('click', () => void this.save());
    this.#diffButton.addEventListener('click', () => this.#toggleDiff());
    this.#update();
  }

  #state(text: string, path = ''): EditorState {
    return EditorState.create({
      doc: text,
      extensions: [
        basicSetup,
        keymap.of([{ key: 'Mod-s', preventDefault: true, run: () => (void this.save(), true) }]),
        this.#language.of(languageFor(path)),
        this.#theme.of(darkTheme() ? oneDark : []),
        this.#diff.of([]),
        EditorView.updateListener.of((update) => {
          if (update.docChanged) this.#update();
        }),
        EditorView.contentAttributes.of({ 'aria-label': 'File contents' }),
      ],
    });
  }

  get dirty(): boolean {
    return this.#file !== null && this.#view.state.doc.toString() !== this.#saved;
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
      const text = await this.#readText(path);
      if (text === null) return;
      this.#file = path;
      this.#saved = text;
      this.#showDiff = false;
      this.#view.setState(this.#state(text, path));
      this.#say('');
    } catch (err) {
      this.#say(`Could not open ${path}: ${err instanceof Error ? err.message : String(err)}`, true);
    }
    this.#update();
  }

  async save(): Promise<void> {
    const sandbox = this.sandbox();
    if (!sandbox || this.#file === null) return;
    const text = this.#view.state.doc.toString();
    try {
      await sandbox.writeFile(this.#file, text);
      this.#saved = text;
      if (this.#showDiff) this.#view.dispatch({ effects: this.#diff.reconfigure(unifiedMergeView({ original: text })) });
      this.#say(`Saved ${this.#file}.`);
      this.onSaved();
    } catch (err) {
      this.#say(`Could not save: ${err instanceof Error ? err.message : String(err)}`, true);
    }
    this.#update();
  }

  #toggleDiff(): void {
    this.#showDiff = !this.#showDiff;
    this.#view.dispatch({
      effects: this.#diff.reconfigure(this.#showDiff ? unifiedMergeView({ original: this.#saved, mergeControls: false }) : []),
    });
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
        this.#view.dispatch({ changes: { from: 0, to: this.#view.state.doc.length, insert: text } });
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
    this.#view.setState(this.#state(''));
    this.#say('');
    this.#update();
  }

  themeChanged(): void {
    this.#view.dispatch({ effects: this.#theme.reconfigure(darkTheme() ? oneDark : []) });
  }

  show(): void {
    this.#view.requestMeasure();
  }
}
