// The chat panel: the conversation turn by turn, each step of the agent visible (the
// command or file operation, its output, the files it changed), a stop button while a
// turn runs, and "revert" on every turn to go back to the files from before it.

import type { ProgressEvent } from 'sandtab';
import type { Conversation, ToolStep, Turn } from './agent/loop';
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
  summary.append(element('code', 'gist', stepTitle(step)), element('span', 'state', STATUS_TEXT[step.status]));
  box.append(summary);
  if (step.name === 'write_file' && typeof step.args.content === 'string') {
    box.append(element('pre', 'input', step.args.content));
  } else if (step.name === 'edit_file') {
    box.append(element('pre', 'input diff', `- ${String(step.args.old_string ?? '')}\n+ ${String(step.args.new_string ?? '')}`));
  }
  if (step.output) box.append(element('pre', 'output', step.output));
  if (step.truncated) box.append(element('p', 'note', 'The model was given this output shortened (start and end).'));
  if (step.filesChanged.length > 0) {
    const files = element('ul', 'files-changed');
    files.setAttribute('aria-label', 'Files changed');
    for (const change of step.filesChanged) files.append(element('li', `change ${change[0] === '+' ? 'added' : change[0] === '-' ? 'removed' : 'modified'}`, change));
    box.append(files);
  }
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

function renderTurn(turn: Turn, running: boolean, actions: ChatActions): HTMLElement {
  const article = element('article', `turn ${turn.status}`);
  article.dataset.turn = String(turn.id);
  const head = element('div', 'turn-head');
  head.append(element('div', 'prompt', turn.prompt));
  if (!running && turn.snapshotId !== null) {
    const revert = element('button', 'revert', 'Revert');
    revert.type = 'button';
    revert.title = 'Go back to the files and the conversation from before this turn';
    revert.addEventListener('click', () => actions.revert(turn.id));
    head.append(revert);
  }
  article.append(head);
  for (const item of turn.items) {
    if (item.kind === 'text') {
      const answer = element('div', 'answer');
      answer.innerHTML = markdownToHtml(item.text);
      article.append(answer);
    } else {
      article.append(renderStep(item));
    }
  }
  if (turn.status === 'running') article.append(element('p', 'working', 'Working…'));
  if (turn.noRevert && turn.status !== 'running') article.append(element('p', 'turn-note', turn.noRevert));
  if (turn.status === 'stopped') article.append(element('p', 'turn-note', turn.error ? `Stopped: ${turn.error}.` : 'Stopped by you.'));
  if (turn.status === 'error') article.append(element('p', 'turn-error', `The model call failed: ${turn.error}`));
  return article;
}

export class ChatPanel {
  readonly #transcript: HTMLElement;
  readonly #prompt: HTMLTextAreaElement;
  readonly #send: HTMLButtonElement;
  readonly #stop: HTMLButtonElement;
  readonly #status: HTMLElement;
  #running = false;
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
      this.#transcript.replaceChildren(element('p', 'empty', 'Ask the agent to build or fix something. It works on this project’s files with the shell, Python and QuickJS, in this tab.'));
      return;
    }
    this.#transcript.replaceChildren(...conversation.turns.map((turn) => renderTurn(turn, this.#running, this.actions)));
    this.#showWait();
    if (atBottom) this.#transcript.scrollTop = this.#transcript.scrollHeight;
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
