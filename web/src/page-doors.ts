// The doors the page keeps for its sandbox's runtime: the network (with the injected
// header values the runtime never sees), the ui frame and the granted tools' handlers.
// The runtime checks each call at its gate; these carry it out and answer the worker.

import { NetBroker, type NetRequest } from './net-broker.js';
import { sandboxHost, type NetDoor, type UiDoor } from './host.js';
import { UiFrame, type UiAction } from './ui-frame.js';
import type { ToWorker } from './protocol.js';
import type { CapabilityDocument, SandboxOptions, ToolHandler } from './types.js';

/** Posts an answer to the worker (unless the sandbox has ended). */
type Send = (answer: ToWorker, transfer?: Transferable[]) => void;

export class PageDoors {
  readonly #net: NetDoor;
  readonly #ui: UiDoor;
  readonly #tools: Record<string, ToolHandler>;
  readonly #hostCall?: (name: string, argsJson: string) => Promise<string>;
  readonly #send: Send;

  constructor(options: SandboxOptions, secrets: Map<string, string>[], send: Send) {
    this.#send = send;
    this.#tools = options.tools ?? {};
    this.#hostCall = options.hostCall;
    this.#net = sandboxHost?.net(secrets) ?? new NetBroker(secrets);
    const place = options.ui;
    const scripts = options.uiScripts;
    this.#ui = sandboxHost?.ui() ?? new UiFrame(
      () => (typeof place === 'function' ? place() : (place ?? null)),
      () => (typeof scripts === 'function' ? scripts() : scripts === true),
    );
  }

  /** Ends a pending `ui` wait with no event. */
  stopWaiting(): void {
    this.#ui.stopWaiting();
  }

  /** The sandbox has ended: aborts requests in flight and removes the ui frame. */
  close(): void {
    this.#net.dispose();
    this.#ui.close();
  }

  async answerNetFetch(callId: number, request: NetRequest): Promise<void> {
    let answer: ToWorker;
    try {
      const value = await this.#net.fetch(request);
      answer = { type: 'netFetchResult', callId, value };
    } catch (err) {
      answer = { type: 'netFetchResult', callId, error: { code: capCode(err, 'CAP_NET_FAILED'), message: messageOf(err) } };
    }
    const transfer = answer.type === 'netFetchResult' && answer.value ? [answer.value.body.buffer as ArrayBuffer] : [];
    this.#send(answer, transfer);
  }

  async answerUi(callId: number, action: UiAction): Promise<void> {
    let answer: ToWorker;
    try {
      answer = { type: 'uiResult', callId, value: await this.#ui.run(action) };
    } catch (err) {
      answer = { type: 'uiResult', callId, error: { code: capCode(err, 'CAP_TOOL_FAILED'), message: messageOf(err) } };
    }
    this.#send(answer);
  }

  async answerHostCall(callId: number, name: string, args: string): Promise<void> {
    let answer: ToWorker;
    try {
      const value = await this.#runTool(name, args);
      if (typeof value !== 'string') throw new Error('hostCall must resolve to a JSON string');
      answer = { type: 'hostCallResult', callId, value };
    } catch (err) {
      answer = { type: 'hostCallResult', callId, error: messageOf(err) };
    }
    this.#send(answer);
  }

  /** Runs the handler of a granted tool: the runtime has checked the call. */
  async #runTool(name: string, args: string): Promise<string> {
    const handler = Object.hasOwn(this.#tools, name) ? this.#tools[name] : undefined;
    if (handler) {
      const value = await handler(JSON.parse(args) as Record<string, unknown>);
      const json = JSON.stringify(value === undefined ? null : value);
      if (json === undefined) throw new Error('the handler answered a value that is not JSON');
      return json;
    }
    if (this.#hostCall) return this.#hostCall(name, args);
    throw new Error(`the page has no handler for \`${name}\``);
  }
}

/** The error's own capability code, or `fallback`. */
function capCode(err: unknown, fallback: string): string {
  const code = (err as { code?: unknown }).code;
  return typeof code === 'string' && code.startsWith('CAP_') ? code : fallback;
}

function messageOf(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/** The document as the runtime gets it: injected header values replaced by `null`
 * (the page injects them itself, so the runtime never holds a secret), and the values
 * kept aside, by grant. */
export function withoutSecrets(doc: CapabilityDocument | undefined): {
  document: CapabilityDocument | undefined;
  secrets: Map<string, string>[];
} {
  const secrets: Map<string, string>[] = [];
  if (doc === undefined || doc === null || typeof doc !== 'object') return { document: doc, secrets };
  const allow = doc.network?.allow;
  if (!Array.isArray(allow)) return { document: doc, secrets };
  const stripped = allow.map((grant) => {
    const kept = new Map<string, string>();
    secrets.push(kept);
    if (!grant || typeof grant !== 'object' || !grant.headers || typeof grant.headers !== 'object') return grant;
    const headers: Record<string, string | null> = {};
    for (const [name, value] of Object.entries(grant.headers)) {
      if (typeof value === 'string') kept.set(name.toLowerCase(), value);
      headers[name] = typeof value === 'string' ? null : (value as null);
    }
    return { ...grant, headers };
  });
  return { document: { ...doc, network: { ...doc.network, allow: stripped as never } }, secrets };
}
