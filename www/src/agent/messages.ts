// The conversation as the agent keeps it, independent of the provider: what the user
// said, what the model answered (text and tool calls) and what each tool returned.
// The clients turn it into each provider's wire format.

export interface ToolCall {
  /** The provider's id for the call (tool results refer to it). */
  id: string;
  name: string;
  /** The arguments as parsed; `{}` when the model's JSON did not parse. */
  args: Record<string, unknown>;
  /** The arguments exactly as the model streamed them. */
  argsText: string;
}

export type Message =
  | { role: 'user'; text: string }
  | { role: 'assistant'; text: string; toolCalls: ToolCall[] }
  | { role: 'tool'; callId: string; name: string; content: string; isError: boolean };

/** One answer of the model. */
export interface ModelReply {
  text: string;
  toolCalls: ToolCall[];
  /** Why it stopped, in the provider's words (`stop`, `tool_calls`, `end_turn`, ...). */
  stopReason: string;
  /** Tokens the call used, when the endpoint said (its `usage`). */
  usage?: TokenUsage;
}

/** Tokens read (the prompt: system, tools, history) and written (the answer). */
export interface TokenUsage {
  input: number;
  output: number;
}

/** A failed model call, said so that the user knows what to fix. */
export class ModelError extends Error {
  override name = 'ModelError';
  constructor(
    message: string,
    /** `http`: an error status; `stream`: an answer that could not be read; `timeout`:
     * no data for too long; `network`: the endpoint could not be reached; `aborted`:
     * stopped by the user. */
    readonly kind: 'http' | 'stream' | 'timeout' | 'network' | 'aborted' | 'settings',
    readonly status?: number,
  ) {
    super(message);
  }
}

/** Parses a tool call's streamed argument text. */
export function parseArgs(text: string): Record<string, unknown> {
  if (text.trim() === '') return {};
  try {
    const value: unknown = JSON.parse(text);
    return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

/** Whether a tool call's arguments were valid JSON (an object). */
export function argsAreValid(call: ToolCall): boolean {
  if (call.argsText.trim() === '') return true;
  try {
    const value: unknown = JSON.parse(call.argsText);
    return value !== null && typeof value === 'object' && !Array.isArray(value);
  } catch {
    return false;
  }
}
