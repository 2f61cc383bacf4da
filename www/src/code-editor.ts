// CodeMirror 6, as the editor panel uses it: loaded only when the editor first opens
// (it is most of the page's script), so a first visit does not wait for it.

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

export class CodeEditor {
  readonly #view: EditorView;
  readonly #language = new Compartment();
  readonly #diff = new Compartment();
  readonly #theme = new Compartment();
  #dark: boolean;

  constructor(
    parent: HTMLElement,
    dark: boolean,
    private readonly onEdit: () => void,
    private readonly onSave: () => void,
  ) {
    this.#dark = dark;
    this.#view = new EditorView({ parent, state: this.#state('') });
  }

  #state(text: string, path = ''): EditorState {
    return EditorState.create({
      doc: text,
      extensions: [
        basicSetup,
        keymap.of([{ key: 'Mod-s', preventDefault: true, run: () => (this.onSave(), true) }]),
        this.#language.of(languageFor(path)),
        this.#theme.of(this.#dark ? oneDark : []),
        this.#diff.of([]),
        EditorView.updateListener.of((update) => {
          if (update.docChanged) this.onEdit();
        }),
        EditorView.contentAttributes.of({ 'aria-label': 'File contents' }),
      ],
    });
  }

  get text(): string {
    return this.#view.state.doc.toString();
  }

  /** A new document: its language from `path`, no history, no diff. */
  load(text: string, path = ''): void {
    this.#view.setState(this.#state(text, path));
  }

  /** The document's text changed outside the editor (its history keeps the change). */
  replace(text: string): void {
    this.#view.dispatch({ changes: { from: 0, to: this.#view.state.doc.length, insert: text } });
  }

  /** Shows the document as a diff against `original`, or no diff for null. */
  diffAgainst(original: string | null): void {
    this.#view.dispatch({
      effects: this.#diff.reconfigure(original === null ? [] : unifiedMergeView({ original, mergeControls: false })),
    });
  }

  /** The whole editing state (text, selection, history), to keep while another file
   * is shown, and to show again with `restore`. */
  snapshot(): EditorState {
    return this.#view.state;
  }

  restore(state: EditorState): void {
    this.#view.setState(state);
    // The theme may have changed while it was put away.
    this.#view.dispatch({ effects: this.#theme.reconfigure(this.#dark ? oneDark : []) });
  }

  /** The text of a kept state. */
  textOf(state: EditorState): string {
    return state.doc.toString();
  }

  setDark(dark: boolean): void {
    this.#dark = dark;
    this.#view.dispatch({ effects: this.#theme.reconfigure(dark ? oneDark : []) });
  }

  measure(): void {
    this.#view.requestMeasure();
  }
}
