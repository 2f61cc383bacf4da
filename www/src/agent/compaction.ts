// Keeping a long conversation within the model's context. Before a model call whose
// input would pass 80% of the context window: first the old tools' outputs are
// shortened (the last few stay whole); if that is not enough, the earlier turns are
// summarised by the model, and the calls after carry that summary in their place. The
// full conversation is kept (for the screen and for revert); the turn says what was done.

import { callModel, type ModelSettings } from './clients';
import type { Message } from './messages';

/** Share of the context window past which the conversation is compacted. */
export const COMPACT_AT = 0.8;
/** Tool outputs kept whole, counted from the newest. */
const KEPT_WHOLE = 2;
/** Characters an old tool output keeps (its start). */
const SHORTENED_TO = 300;

/** The earlier part of the conversation, replaced for the model by a summary. */
export interface Summary {
  /** Messages before this index are summarised. */
  upTo: number;
  text: string;
}

const SUMMARY_PROMPT = `You summarise a coding agent's conversation so that it can go on without it.
Write what the user asked for, what was done (files written or changed, commands run and what they showed), what is still open, and any facts the agent will need (paths, names, errors). Plain text, at most 300 words.`;

/** The messages a model call gets: the summary (with an acknowledgement, so that the
 * roles alternate) in place of what it covers. */
export function modelMessages(messages: Message[], summary: Summary | undefined): Message[] {
  if (!summary) return messages;
  return [
    { role: 'user', text: `[A summary of the conversation so far, made to save context]\n${summary.text}` },
    { role: 'assistant', text: 'Understood: I will go on from this summary.', toolCalls: [] },
    ...messages.slice(summary.upTo),
  ];
}

/** About how many tokens a call reads: four characters a token (the endpoint's own
 * count is used when it gave one for the last call). */
export function estimateTokens(system: string, messages: Message[], tools: unknown[]): number {
  let chars = system.length + JSON.stringify(tools).length;
  for (const message of messages) {
    chars += message.role === 'tool' ? message.content.length : message.text.length;
    if (message.role === 'assistant') chars += message.toolCalls.reduce((n, call) => n + call.argsText.length + call.name.length, 0);
  }
  return Math.ceil(chars / 4);
}

/** Shortens the outputs of all but the newest tools, in place: how many, and the
 * characters saved. */
export function shortenOldOutputs(messages: Message[]): { count: number; saved: number } {
  const tools = messages.filter((m): m is Extract<Message, { role: 'tool' }> => m.role === 'tool');
  let count = 0;
  let saved = 0;
  for (const message of tools.slice(0, Math.max(0, tools.length - KEPT_WHOLE))) {
    if (message.content.length <= SHORTENED_TO * 2) continue;
    const before = message.content.length;
    message.content = `${message.content.slice(0, SHORTENED_TO)}\n[... the rest of this old output (${before - SHORTENED_TO} characters) was dropped to save context; run the command again to see it ...]`;
    saved += before - message.content.length;
    count++;
  }
  return { count, saved };
}

/** The model's summary of `messages` (the earlier turns, with any earlier summary). */
export async function summarise(settings: ModelSettings, messages: Message[], tools: unknown[], signal: AbortSignal): Promise<string> {
  const reply = await callModel(settings, {
    system: SUMMARY_PROMPT,
    messages: [...messages, { role: 'user', text: 'Summarise the conversation above, as the system prompt says.' }],
    // The same tools: an API may refuse tool calls in the history of a call without them.
    tools,
    signal,
    onText: () => {},
  });
  const text = reply.text.trim();
  if (!text) throw new Error('the model gave an empty summary');
  return text;
}
