// The agent loop: one user turn is model call, tool calls, model call, ... until the
// model answers without calling a tool. Every step is kept for the screen (command,
// output, files changed), the files are snapshotted before the turn so it can be
// undone, and the user's stop ends the turn at once while keeping the conversation
// valid for the next one.

import type { Sandbox } from 'sandtab';
import { SandboxError } from 'sandtab';
import { callModel, type ModelSettings } from './clients';
import { argsAreValid, ModelError, type Message, type ToolCall } from './messages';
import { changedFiles, scanFiles } from './files';
import { fileDiff, readText, toolPath, type FileDiff, type FileText } from './diffs';
import { COMPACT_AT, estimateTokens, modelMessages, shortenOldOutputs, summarise, type Summary } from './compaction';

/** The tools that name the file they change. */
const FILE_TOOLS = new Set(['write_file', 'edit_file']);

/** Each file's text before the turn first changed it (when known) and after its last
 * change so far, by path. */
type TurnTexts = Map<string, { first: FileText; last: FileText; changed: boolean }>;

/** The step's diffs, from what is known of each changed file's text before it; the
 * texts are updated to after it. */
async function stepDiffs(sandbox: Sandbox, changed: string[], texts: TurnTexts): Promise<FileDiff[]> {
  const diffs: FileDiff[] = [];
  for (const change of changed) {
    const [mark, path] = [change[0], change.slice(2)];
    const known = texts.get(path);
    // Added: it was not there. Otherwise known only if kept (a file tool, an earlier step).
    const before: FileText = mark === '+' ? null : known ? (known.changed ? known.last : known.first) : undefined;
    const after: FileText = mark === '-' ? null : await readText(sandbox, path);
    if (known) Object.assign(known, { last: after, changed: true });
    else texts.set(path, { first: before, last: after, changed: true });
    const diff = fileDiff(path, before, after);
    if (diff) diffs.push(diff);
  }
  return diffs;
}

export interface TextItem {
  kind: 'text';
  text: string;
}

export interface ToolStep {
  kind: 'tool';
  callId: string;
  name: string;
  args: Record<string, unknown>;
  status: 'running' | 'ok' | 'error' | 'stopped';
  /** What the tool gave back, as shown on the screen. */
  output: string;
  /** Whether the model was given a shortened output. */
  truncated: boolean;
  /** Files the step added (`+`), changed (`~`) or removed (`-`). */
  filesChanged: string[];
  /** How it changed the text files whose earlier text is known (see `diffs.ts`). */
  diffs?: FileDiff[];
}

export interface Turn {
  id: number;
  prompt: string;
  /** The snapshot of the files taken just before the turn (for revert). */
  snapshotId: number | null;
  /** Why the turn has no snapshot, when the sandbox cannot take one (kept in memory). */
  noRevert?: string;
  /** What the turn changed in each text file, from before its first step to after its
   * last (files whose text before the turn is known). */
  diffs?: FileDiff[];
  /** Tokens its model calls used, summed (from the endpoint's `usage`; absent when the
   * endpoint says nothing of it). */
  usage?: { input: number; output: number; calls: number };
  /** Where the turn's messages start in the conversation. */
  messageStart: number;
  started: number;
  items: (TextItem | ToolStep | NoteItem)[];
  status: 'running' | 'done' | 'stopped' | 'error';
  error?: string;
}

export interface Conversation {
  turns: Turn[];
  messages: Message[];
  /** The earlier messages the model gets as a summary (see `compaction.ts`). */
  summary?: Summary;
  /** The tokens of the last call as the endpoint counted them (input and output), and
   * how many messages there were then: the next call's size is that and the rest. */
  counted?: { tokens: number; messages: number };
}

/** A line in a turn about the conversation itself (it was compacted). */
export interface NoteItem {
  kind: 'note';
  text: string;
}

/** Characters of a tool's output the model sees; longer outputs keep their start and end. */
export const MODEL_OUTPUT_LIMIT = 12_000;
/** Characters of a tool's output kept for the screen. */
const SCREEN_OUTPUT_LIMIT = 100_000;
/** Model calls in one turn before the agent stops by itself. */
export const MAX_STEPS = 30;

export const SYSTEM_PROMPT = `You are a coding agent working in sandtab, a sandbox that runs entirely in the user's browser tab.
You have a bash-compatible shell with the usual commands (ls, cat, grep, sed, find, jq, diff, patch, tar, curl when allowed), python3 (CPython 3.12; pip installs pure-Python packages when the user granted the package index; urllib, http.client and requests reach granted origins, HTTPS included) and qjs (QuickJS).
Files persist; the working directory is /home/agent. Use the tools to inspect, write and run code; check your work by running it.
An HTML app written to the project can be shown in the Preview panel. Network access is off unless the user granted origins.
Keep answers short; say what you changed.`;

/** Shortens `text` for the model, keeping its start and end around a marker. */
export function truncateForModel(text: string, limit = MODEL_OUTPUT_LIMIT): { text: string; truncated: boolean } {
  if (text.length <= limit) return { text, truncated: false };
  const head = Math.floor(limit * 0.6);
  const tail = limit - head;
  const cut = text.length - head - tail;
  return {
    text: `${text.slice(0, head)}\n[... ${cut} characters cut from the middle of this output; use head, tail or grep to read parts of it ...]\n${text.slice(text.length - tail)}`,
    truncated: true,
  };
}

/** A tool's answer as text for the model and the screen. */
function describeResult(name: string, result: unknown): { text: string; isError: boolean } {
  if (name === 'bash' && result && typeof result === 'object') {
    const { stdout, stderr, exit_code } = result as { stdout: string; stderr: string; exit_code: number };
    let text = stdout;
    if (stderr) text += `${text && !text.endsWith('\n') ? '\n' : ''}[stderr]\n${stderr}`;
    text += `${text && !text.endsWith('\n') ? '\n' : ''}[exit code ${exit_code}]`;
    return { text, isError: exit_code !== 0 };
  }
  if (name === 'read_file' && result && typeof result === 'object' && 'content' in result) {
    return { text: String((result as { content: unknown }).content), isError: false };
  }
  return { text: typeof result === 'string' ? result : JSON.stringify(result, null, 1), isError: false };
}

async function runTool(sandbox: Sandbox, call: ToolCall): Promise<{ text: string; isError: boolean }> {
  if (!argsAreValid(call)) {
    return { text: `error: the arguments are not a JSON object: ${call.argsText.slice(0, 200)}`, isError: true };
  }
  try {
    return describeResult(call.name, await sandbox.callTool(call.name, call.args));
  } catch (err) {
    const code = err instanceof SandboxError && err.code ? ` [${err.code}]` : '';
    return { text: `error${code}: ${err instanceof Error ? err.message : String(err)}`, isError: true };
  }
}

export interface TurnContext {
  sandbox: Sandbox;
  settings: ModelSettings;
  conversation: Conversation;
  signal: AbortSignal;
  /** Called whenever the turn changed (text arrived, a step started or ended). */
  onUpdate: (turn: Turn) => void;
  /** Called after each model answer and tool result, to save the conversation. */
  onCheckpoint: () => Promise<void>;
}

/** Runs one user turn to its end (done, stopped, or failed with the error on the turn). */
export async function runTurn(context: TurnContext, prompt: string): Promise<Turn> {
  const { sandbox, settings, conversation, signal } = context;
  const turn: Turn = {
    id: (conversation.turns.at(-1)?.id ?? 0) + 1,
    prompt,
    snapshotId: null,
    messageStart: conversation.messages.length,
    started: Date.now(),
    items: [],
    status: 'running',
  };
  conversation.turns.push(turn);
  const update = () => context.onUpdate(turn);
  const texts: TurnTexts = new Map();
  // A stop while a command runs ends the command too.
  const cancel = () => sandbox.cancel();
  signal.addEventListener('abort', cancel);
  try {
    try {
      turn.snapshotId = (await sandbox.snapshot(`before turn ${turn.id}`)).id;
    } catch (err) {
      // A sandbox kept in memory has no snapshots: the turn runs, without a revert.
      if ((err as { code?: string }).code !== 'ENOTSUP') throw err;
      turn.noRevert = 'This project is kept in memory (?storage=memory), which keeps no snapshots: this turn cannot be reverted.';
    }
    conversation.messages.push({ role: 'user', text: prompt });
    update();
    await context.onCheckpoint();
    const provider = settings.provider;
    for (let step = 0; ; step++) {
      if (step >= MAX_STEPS) throw new ModelError(`stopped after ${MAX_STEPS} model calls in one turn`, 'stream');
      const tools = await sandbox.toolDefinitions(provider);
      await compactIfNeeded(context, turn, tools);
      let text: TextItem | null = null;
      const reply = await callModel(settings, {
        system: SYSTEM_PROMPT,
        messages: modelMessages(conversation.messages, conversation.summary),
        tools,
        signal,
        onText: (delta) => {
          if (!text) {
            text = { kind: 'text', text: '' };
            turn.items.push(text);
          }
          text.text += delta;
          update();
        },
      });
      conversation.messages.push({ role: 'assistant', text: reply.text, toolCalls: reply.toolCalls });
      if (reply.usage) {
        // What the next call reads: this call's input and output, and what comes after.
        conversation.counted = { tokens: reply.usage.input + reply.usage.output, messages: conversation.messages.length };
        turn.usage ??= { input: 0, output: 0, calls: 0 };
        turn.usage.input += reply.usage.input;
        turn.usage.output += reply.usage.output;
        turn.usage.calls++;
        update();
      }
      await context.onCheckpoint();
      if (reply.toolCalls.length === 0) break;
      for (const call of reply.toolCalls) {
        const item: ToolStep = {
          kind: 'tool',
          callId: call.id,
          name: call.name,
          args: call.args,
          status: 'running',
          output: '',
          truncated: false,
          filesChanged: [],
        };
        turn.items.push(item);
        update();
        if (signal.aborted) {
          item.status = 'stopped';
          item.output = 'not run: stopped by the user';
          conversation.messages.push({ role: 'tool', callId: call.id, name: call.name, content: item.output, isError: true });
          continue;
        }
        const before = await scanFiles(sandbox);
        // A file tool's file: its text now, to show the step's change as a diff.
        const target = FILE_TOOLS.has(call.name) ? toolPath(call.args) : null;
        if (target !== null && !texts.has(target)) texts.set(target, { first: await readText(sandbox, target), last: undefined, changed: false });
        const result = await runTool(sandbox, call);
        item.filesChanged = changedFiles(before, await scanFiles(sandbox));
        item.diffs = await stepDiffs(sandbox, item.filesChanged, texts);
        const forModel = truncateForModel(result.text);
        item.output = result.text.length > SCREEN_OUTPUT_LIMIT ? `${result.text.slice(0, SCREEN_OUTPUT_LIMIT)}\n[...]` : result.text;
        item.truncated = forModel.truncated;
        item.status = signal.aborted ? 'stopped' : result.isError ? 'error' : 'ok';
        conversation.messages.push({ role: 'tool', callId: call.id, name: call.name, content: forModel.text, isError: result.isError });
        update();
        await context.onCheckpoint();
      }
      if (signal.aborted) throw new ModelError('stopped', 'aborted');
    }
    turn.status = 'done';
  } catch (err) {
    if (err instanceof ModelError && err.kind === 'aborted') {
      turn.status = 'stopped';
    } else {
      turn.status = 'error';
      turn.error = err instanceof Error ? err.message : String(err);
    }
  } finally {
    signal.removeEventListener('abort', cancel);
    // The turn's change to each file, from its text before the turn to after it.
    turn.diffs = [...texts].flatMap(([path, { first, last, changed }]) => (changed ? (fileDiff(path, first, last) ?? []) : []));
  }
  update();
  await context.onCheckpoint();
  return turn;
}

/** Before a model call: when its input would pass `COMPACT_AT` of the context window,
 * shortens the old tool outputs, then (if still too long, and there are earlier turns)
 * has the model summarise the turns before this one. Each is said on the turn. */
async function compactIfNeeded(context: TurnContext, turn: Turn, tools: unknown[]): Promise<void> {
  const { settings, conversation, signal } = context;
  const limit = settings.contextTokens * COMPACT_AT;
  const size = () => estimateTokens(SYSTEM_PROMPT, modelMessages(conversation.messages, conversation.summary), tools);
  // The endpoint's own count of the last call, and an estimate of what came since.
  const counted = conversation.counted;
  const now =
    counted && counted.messages <= conversation.messages.length
      ? counted.tokens + estimateTokens('', conversation.messages.slice(counted.messages), [])
      : size();
  if (now <= limit) return;
  delete conversation.counted;
  const note = (text: string) => {
    turn.items.push({ kind: 'note', text });
    context.onUpdate(turn);
  };
  const shortened = shortenOldOutputs(conversation.messages);
  if (shortened.count > 0) {
    const outputs = shortened.count === 1 ? '1 old tool output' : `${shortened.count} old tool outputs`;
    note(`The conversation neared the model's context window (${settings.contextTokens.toLocaleString('en-US')} tokens): shortened ${outputs}, ${shortened.saved.toLocaleString('en-US')} characters fewer.`);
  }
  const upTo = turn.messageStart;
  if (size() <= limit || upTo <= (conversation.summary?.upTo ?? 0)) return;
  const earlier = conversation.turns.filter((t) => t !== turn && t.messageStart < upTo).length;
  const text = await summarise(settings, modelMessages(conversation.messages.slice(0, upTo), conversation.summary), tools, signal);
  conversation.summary = { upTo, text };
  note(`Still too long: the model summarised the ${earlier === 1 ? 'turn' : `${earlier} turns`} before this one, and reads that summary in their place. The summary: ${text}`);
  await context.onCheckpoint();
}

/** Undoes `turn` and every later one: their files (the snapshot taken before it) and
 * their part of the conversation. */
export async function revertTo(sandbox: Sandbox, conversation: Conversation, turnId: number): Promise<void> {
  const index = conversation.turns.findIndex((turn) => turn.id === turnId);
  if (index < 0) throw new Error(`no turn ${turnId}`);
  const turn = conversation.turns[index]!;
  if (turn.snapshotId === null) throw new Error(`turn ${turnId} has no snapshot to go back to`);
  await sandbox.restore(turn.snapshotId);
  conversation.messages.splice(turn.messageStart);
  // A summary of messages now gone goes too (the next turn compacts again if need be).
  if (conversation.summary && conversation.summary.upTo > turn.messageStart) delete conversation.summary;
  delete conversation.counted;
  const removed = conversation.turns.splice(index);
  // The undone turns' snapshots are not reachable any more: give their space back.
  for (const gone of removed) {
    if (gone.snapshotId !== null) await sandbox.deleteSnapshot(gone.snapshotId).catch(() => {});
  }
}
