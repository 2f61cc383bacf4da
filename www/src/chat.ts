// The chat panel: the conversation turn by turn, each step of the agent visible (the
// command or file operation, its output, the files it changed), a stop button while a
// turn runs, and "revert" on every turn to go back to the files from before it.

import type { ProgressEvent } from 'sandtab';
import type { Conversation, ToolStep, Turn } from './agent/loop';
import type { FileDiff } from './agent/diffs';
import { markdownToHtml } from './markdown';

export interface ChatActions {
  /** Starts a turn; false when it cannot start now (the text stays in the box). */
  send: (prompt: string) => boolean;
  stop: () => void;
  revert: (turnId: number) => void;
}

function element<K extends keyof HTMLElementTagNameMap>(tag: K, className: string, text?: string): HTMLElementTagNameMap[K] {
  const node = document.createElement(tag);
  node.className = className;
  if (text !== undefined) node.textContent = text;
  return node;
}

/** The one-line gist of a step: the command, or the tool and its main argument. */
export function stepTitle(step: ToolStep): string {
  const arg = (key: string) => (typeof step.args[key] === 'string' ? (step.args[key] as string) : '');
  switch (step.name) {
    case 'bash':
      return `$ ${arg('command')}`;
    case 'read_file':
    case 'write_file':
    case 'edit_file':
      return `${step.name} ${arg('path')}`;
    case 'fetch':
      return `fetch ${arg('method') || 'GET'} ${arg('url')}`;
    case 'ui':
      return `ui ${arg('path') || '(html)'}`;
    default:
      return `${step.name} ${JSON.stringify(step.args)}`;
  }
}

const STATUS_TEXT: Record<ToolStep['status'], string> = { running: 'running', ok: 'ok', error: 'failed', stopped: 'stopped' };

function renderStep(step: ToolStep): HTMLElement {
  const box = element('details', `step ${step.status}`);
  box.dataset.tool = step.name;
  // Failures are open to read; long successful outputs stay folded.
  box.open = step.status !== 'ok' || step.output.length < 2_000;
  const summary = element('summary', 'step-title');
  // A step the person opened or closed keeps that when it is drawn again.
  summary.addEventListener('click', () => (box.dataset.chosen = 'yes'));
  summary.append(element('code', 'gist', stepTitle(step)), element('span', 'state', STATUS_TEXT[step.status]));
  box.append(summary);
  if (step.diffs && step.diffs.length > 0) {
    for (const diff of step.diffs) box.append(renderDiff(diff, true));
  } else if (step.name === 'write_file' && typeof step.args.content === 'string') {
    box.append(element('pre', 'input', step.args.content));
  } else if (step.name === 'edit_file') {
    box.append(element('pre', 'input diff', `- ${String(step.args.old_string ?? '')}\n+ ${String(step.args.new_string ?? '')}`));
  }
  if (step.output) box.append(withCopy(element('pre', 'output', step.output), step.output));
  if (step.truncated) box.append(element('p', 'note', 'The model was given this output shortened (start and end).'));
  if (step.filesChanged.length > 0) {
    const files = element('ul', 'files-changed');
    files.setAttribute('aria-label', 'Files changed');
    for (const change of step.filesChanged) files.append(element('li', `change ${change[0] === '+' ? 'added' : change[0] === '-' ? 'removed' : 'modified'}`, change));
    box.append(files);
  }
  return box;
}

/** A line about the conversation itself (it was compacted). */
function renderNote(text: string): HTMLElement {
  const note = element('p', 'compaction-note', text);
  note.setAttribute('role', 'note');
  return note;
}

/** A file's change as a diff: `~ path +3 −1`, then its lines, coloured. */
function renderDiff(diff: FileDiff, open: boolean): HTMLElement {
  const box = element('details', `file-diff ${diff.mark === '+' ? 'added' : diff.mark === '-' ? 'removed' : 'modified'}`);
  box.open = open;
  const summary = element('summary', 'diff-title');
  summary.append(element('code', 'diff-path', `${diff.mark} ${diff.path}`), element('span', 'diff-count', `+${diff.added} −${diff.removed}`));
  const pre = element('pre', 'diff');
  for (const line of diff.lines) {
    const kind = line.startsWith('@@') ? 'hunk' : line[0] === '+' ? 'add' : line[0] === '-' ? 'del' : 'same';
    pre.append(element('span', kind, line));
  }
  box.append(summary, pre);
  return box;
}

/** What a running step waits for: a program's download (a bar with the bytes) or its
 * compilation (a bar without an end). */
function renderWait(event: ProgressEvent): HTMLElement {
  const box = element('div', 'step-progress');
  box.setAttribute('role', 'status');
  const mb = (n: number) => (n / 1e6).toFixed(1);
  const bar = element('progress', 'bar');
  let text: string;
  if (event.phase === 'compile') {
    text = `Waiting for ${event.program}: compiling it…`;
  } else if (event.total > 0) {
    text = `Waiting for ${event.program}: downloading ${mb(event.loaded)} of ${mb(event.total)} MB`;
    bar.max = event.total;
    bar.value = event.loaded;
  } else {
    text = `Waiting for ${event.program}: downloading${event.loaded > 0 ? ` ${mb(event.loaded)} MB` : '…'}`;
  }
  bar.setAttribute('aria-label', text);
  box.append(element('span', 'wait-text', text), bar);
  return box;
}

/** `block` with a Copy button for `text` (an output, a code block). */
function withCopy(block: HTMLElement, text: string): HTMLElement {
  const box = element('div', 'copyable');
  // The label is drawn by CSS, so the block's text (what tests and screen readers
  // read as the output) stays the output's.
  const copy = element('button', 'copy');
  copy.type = 'button';
  copy.title = 'Copy to the clipboard';
  copy.setAttribute('aria-label', 'Copy');
  copy.addEventListener('click', (event) => {
    event.preventDefault();
    void navigator.clipboard.writeText(text).then(
      () => (copy.dataset.state = 'copied'),
      () => (copy.dataset.state = 'failed'),
    );
    setTimeout(() => delete copy.dataset.state, 1500);
  });
  box.append(block, copy);
  return box;
}

/** An answer's Markdown, with a Copy button on each code block. */
function renderAnswer(text: string): HTMLElement {
  const answer = element('div', 'answer');
  answer.innerHTML = markdownToHtml(text);
  for (const code of answer.querySelectorAll('pre')) {
    const holder = document.createElement('div');
    code.replaceWith(holder);
    holder.replaceWith(withCopy(code, code.textContent ?? ''));
  }
  return answer;
}

/** What decides how an item looks: drawn again only when it changes. */
function itemKey(item: Turn['items'][number]): string {
  if (item.kind === 'text') return `text:${item.text}`;
  if (item.kind === 'note') return `note:${item.text}`;
  return JSON.stringify([item.status, item.output.length, item.truncated, item.filesChanged, item.args, item.diffs?.length ?? 0]);
}

/** A turn's head (the prompt, Revert) and foot (working, notes, error). */
function renderHead(turn: Turn, running: boolean, actions: ChatActions): HTMLElement {
  const head = element('div', 'turn-head');
  head.append(element('div', 'prompt', turn.prompt));
  if (!running && turn.snapshotId !== null) {
    const revert = element('button', 'revert', 'Revert');
    revert.type = 'button';
    revert.title = 'Go back to the files and the conversation from before this turn';
    revert.addEventListener('click', () => actions.revert(turn.id));
    head.append(revert);
  }
  return head;
}

/** `1,234 in, 56 out` (a model call's tokens). */
function tokens(usage: { input: number; output: number }): string {
  const n = (count: number) => count.toLocaleString('en-US');
  return `${n(usage.input)} in, ${n(usage.output)} out`;
}

function renderFoot(turn: Turn, total: { input: number; output: number } | null): HTMLElement[] {
  const foot: HTMLElement[] = [];
  if (turn.diffs && turn.diffs.length > 0 && turn.status !== 'running') {
    const changes = element('details', 'turn-changes');
    const files = turn.diffs.length === 1 ? '1 file' : `${turn.diffs.length} files`;
    const added = turn.diffs.reduce((n, d) => n + d.added, 0);
    const removed = turn.diffs.reduce((n, d) => n + d.removed, 0);
    changes.append(element('summary', 'changes-title', `Changes in this turn: ${files}, +${added} −${removed}`));
    for (const diff of turn.diffs) changes.append(renderDiff(diff, true));
    foot.push(changes);
  }
  if (turn.usage && turn.status !== 'running') {
    const calls = turn.usage.calls === 1 ? '1 model call' : `${turn.usage.calls} model calls`;
    const sum = total ? `; the conversation so far: ${tokens(total)}` : '';
    foot.push(element('p', 'turn-usage', `Tokens: ${tokens(turn.usage)} (${calls})${sum}`));
  }
  if (turn.status === 'running') foot.push(element('p', 'working', 'Working…'));
  if (turn.noRevert && turn.status !== 'running') foot.push(element('p', 'turn-note', turn.noRevert));
  if (turn.status === 'stopped') foot.push(element('p', 'turn-note', turn.error ? `Stopped: ${turn.error}.` : 'Stopped by you.'));
  if (turn.status === 'error') foot.push(element('p', 'turn-error', `The model call failed: ${turn.error}`));
  return foot;
}

/** Makes `parent`'s children `wanted`, moving and adding only what differs (a node
 * kept in place keeps its state: an open step, a selection). */
function reconcile(parent: HTMLElement, wanted: Node[]): void {
  const current = [...parent.childNodes];
  if (current.length === wanted.length && current.every((node, i) => node === wanted[i])) return;
  if (current.length < wanted.length && current.every((node, i) => node === wanted[i])) {
    parent.append(...wanted.slice(current.length));
    return;
  }
  parent.replaceChildren(...wanted);
}

/** Prompts the empty chat offers. */
const EXAMPLES = [
  'Write a Python script that prints the first 20 prime numbers, and run it.',
  'Make index.html: a to-do list with add and remove, and show it in the preview.',
  'Count the lines of every file in this project and sort them, largest first.',
];

interface Drawn {
  key: string;
  nodes: HTMLElement[];
}

export class ChatPanel {
  readonly #transcript: HTMLElement;
  readonly #prompt: HTMLTextAreaElement;
  readonly #send: HTMLButtonElement;
  readonly #stop: HTMLButtonElement;
  readonly #status: HTMLElement;
  #running = false;
  /** What was drawn for each turn (its article, head and foot) and item, by object:
   * a render draws again only what changed. */
  #drawn = new WeakMap<object, Drawn>();
  #totals = new Map<Turn, { input: number; output: number }>();
  /** A program the running step's command waits for, as its latest progress. */
  #waitingFor: ProgressEvent | null = null;

  constructor(
    root: HTMLElement,
    readonly actions: ChatActions,
  ) {
    this.#transcript = root.querySelector('#transcript')!;
    this.#prompt = root.querySelector('#prompt')!;
    this.#send = root.querySelector('#send')!;
    this.#stop = root.querySelector('#stop')!;
    this.#status = root.querySelector('#chat-status')!;
    root.querySelector('form')!.addEventListener('submit', (event) => {
      event.preventDefault();
      this.#submit();
    });
    // Enter sends, Shift+Enter starts a new line, Escape stops a running turn.
    this.#prompt.addEventListener('keydown', (event) => {
      if (event.key === 'Escape' && this.#running) {
        event.preventDefault();
        actions.stop();
        return;
      }
      if (event.key === 'Enter' && !event.shiftKey && !event.isComposing) {
        event.preventDefault();
        this.#submit();
      }
    });
    this.#stop.addEventListener('click', () => actions.stop());
    this.setRunning(false);
  }

  #submit(): void {
    const text = this.#prompt.value.trim();
    if (!text || this.#running) return;
    if (this.actions.send(text)) this.#prompt.value = '';
  }

  setRunning(running: boolean): void {
    this.#running = running;
    this.#send.disabled = running;
    this.#stop.disabled = !running;
    this.#stop.hidden = !running;
  }

  status(text: string, isError = false): void {
    this.#status.textContent = text;
    this.#status.classList.toggle('error', isError);
  }

  /** Offers the person a choice below the status line (one at a time): `text`, and a
   * button that runs `accept` and removes the offer; "Not now" only removes it. */
  offer(text: string, label: string, accept: () => void): void {
    this.#status.parentElement?.querySelector('.chat-offer')?.remove();
    const box = element('div', 'chat-offer');
    box.setAttribute('role', 'group');
    box.setAttribute('aria-label', 'Offer');
    const yes = element('button', 'offer-accept', label);
    const no = element('button', 'offer-dismiss', 'Not now');
    yes.type = no.type = 'button';
    yes.addEventListener('click', () => {
      box.remove();
      accept();
    });
    no.addEventListener('click', () => box.remove());
    box.append(element('span', 'offer-text', text), yes, no);
    this.#status.after(box);
  }

  /** Draws the whole conversation (turns are few; a redraw keeps it simple and exact). */
  render(conversation: Conversation): void {
    const atBottom = this.#transcript.scrollHeight - this.#transcript.scrollTop - this.#transcript.clientHeight < 40;
    if (conversation.turns.length === 0) {
      this.#transcript.replaceChildren(this.#emptyState());
      return;
    }
    // Each turn's foot says the tokens of the conversation up to its end.
    this.#totals = new Map();
    const total = { input: 0, output: 0 };
    for (const turn of conversation.turns) {
      total.input += turn.usage?.input ?? 0;
      total.output += turn.usage?.output ?? 0;
      if (turn.usage) this.#totals.set(turn, { ...total });
    }
    reconcile(this.#transcript, conversation.turns.map((turn) => this.#turn(turn)));
    this.#showWait();
    if (atBottom) this.#transcript.scrollTop = this.#transcript.scrollHeight;
  }

  /** The chat before the first turn: what the agent can do, and prompts to start from
   * (a click puts one in the box, to send or change). */
  #emptyState(): HTMLElement {
    const box = element('div', 'empty-state empty');
    box.append(
      element('h2', '', 'What should we build?'),
      element('p', '', 'The agent works on this project’s files with a shell, Python and QuickJS, all in this tab. You see every step it takes.'),
    );
    const examples = element('div', 'examples');
    for (const text of EXAMPLES) {
      const example = element('button', 'example', text);
      example.type = 'button';
      example.addEventListener('click', () => {
        this.#prompt.value = text;
        this.#prompt.focus();
      });
      examples.append(example);
    }
    box.append(examples);
    return box;
  }

  /** A turn's article, its parts drawn again only where they changed. */
  #turn(turn: Turn): HTMLElement {
    let article = this.#drawn.get(turn)?.nodes[0];
    if (!article) {
      article = element('article', '');
      article.dataset.turn = String(turn.id);
      this.#drawn.set(turn, { key: '', nodes: [article] });
    }
    article.className = `turn ${turn.status}`;
    const total = this.#totals.get(turn) ?? null;
    const frameKey = JSON.stringify([turn.status, turn.error, turn.noRevert, turn.snapshotId !== null, this.#running, turn.usage, total, turn.diffs?.length ?? 0]);
    const frame = this.#drawn.get(turn)!;
    let head = frame.nodes[1];
    let foot = frame.nodes.slice(2);
    if (frame.key !== frameKey || !head) {
      head = renderHead(turn, this.#running, this.actions);
      foot = renderFoot(turn, total);
      this.#drawn.set(turn, { key: frameKey, nodes: [article, head, ...foot] });
    }
    const items = turn.items.map((item) => this.#item(item));
    reconcile(article, [head, ...items, ...foot]);
    return article;
  }

  #item(item: Turn['items'][number]): HTMLElement {
    const key = itemKey(item);
    const drawn = this.#drawn.get(item);
    if (drawn && drawn.key === key) return drawn.nodes[0];
    const node = item.kind === 'text' ? renderAnswer(item.text) : item.kind === 'note' ? renderNote(item.text) : renderStep(item);
    // The person's choice of open or closed outlives a redraw of the step.
    const before = drawn?.nodes[0];
    if (before instanceof HTMLDetailsElement && before.dataset.chosen && node instanceof HTMLDetailsElement) {
      node.open = before.open;
      node.dataset.chosen = 'yes';
    }
    this.#drawn.set(item, { key, nodes: [node] });
    return node;
  }

  /** A program's progress: while a command waits for it, the running step shows it. */
  programProgress(event: ProgressEvent): void {
    const waiting = event.waiting === true && (event.phase === 'fetch' || event.phase === 'compile');
    if (waiting) this.#waitingFor = event;
    else if (this.#waitingFor?.program === event.program) this.#waitingFor = null;
    this.#showWait();
  }

  #showWait(): void {
    const steps = this.#transcript.querySelectorAll('.step.running');
    const step = steps[steps.length - 1];
    this.#transcript.querySelector('.step-progress')?.remove();
    if (step && this.#waitingFor) step.querySelector('summary')!.after(renderWait(this.#waitingFor));
  }

  focus(): void {
    this.#prompt.focus();
  }
}
