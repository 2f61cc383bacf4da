// The page's side of the sandbox's `ui` door: HTML from the sandbox shown in a contained
// frame (`contained-frame.ts`: it can read nothing of the page and reach nothing), and a
// bridge that turns a person's clicks and form submissions, and `sandtab.send(data)`
// from the frame's own scripts, into JSON events for the sandbox's `ui wait`.
//
// Scripts are off unless the page allows them (`uiScripts`); while they are off the
// bridge listens to the frame's document from the page. With scripts on, the bridge runs first inside the
// frame and talks to the page over a MessagePort only it holds, and it passes on only
// events the browser marks as a person's (`isTrusted`), so a script cannot make a click
// or a submission up; what a script says goes out as `{type: 'message'}`.

import { containedFrame, contentDocument, contentWindow, holdLinks } from './contained-frame.js';

/** The Content Security Policy the sandbox's HTML starts with (the wrapper's, which it
 * also inherits, is stricter still: it frames nothing). */
export const UI_POLICY =
  "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; img-src data: blob:; font-src data:; media-src data: blob:; form-action 'none'; base-uri 'none'";

/** The largest event the frame may send (bytes of JSON); larger ones are dropped. */
const MAX_EVENT_BYTES = 64 * 1024;
/** Events kept while nobody waits; older ones are dropped. */
const MAX_QUEUED = 100;

/** Turns a person's clicks, submissions and Enter presses in `doc` into `send(event)`.
 * It runs in the page (scripts off) or, stringified, inside the frame (scripts on), so
 * it must name nothing outside itself. Inside the frame it runs before the frame's own
 * scripts: it takes the built-ins it relies on now, so that a script replacing them
 * later (`Event.prototype.target`, `Element.prototype.closest`, FormData's iterator)
 * cannot turn a person's keystroke into a submission they did not make. */
function listen(doc: Document, send: (event: unknown) => void): void {
  const win = doc.defaultView as (Window & typeof globalThis) | null;
  if (!win) return;
  const apply = win.Reflect.apply;
  const uncurry =
    <T extends unknown[], R>(f: (...args: T) => R) =>
    (self: unknown, ...args: T): R =>
      apply(f, self, args);
  const getter = (proto: object, name: string) => uncurry(win.Object.getOwnPropertyDescriptor(proto, name)!.get!);
  const targetOf = getter(win.Event.prototype, 'target') as (e: Event) => EventTarget | null;
  const keyOf = getter(win.KeyboardEvent.prototype, 'key') as (e: Event) => string;
  const prevent = uncurry(win.Event.prototype.preventDefault);
  const closest = uncurry(win.Element.prototype.closest) as (el: unknown, selector: string) => Element | null;
  const matches = uncurry(win.Element.prototype.matches) as (el: unknown, selector: string) => boolean;
  const FD = win.FormData;
  const entries = uncurry(FD.prototype.entries) as (fd: FormData) => Iterator<[string, FormDataEntryValue]>;
  const next = uncurry(win.Object.getPrototypeOf(entries(new FD())).next) as (it: unknown) => IteratorResult<[string, FormDataEntryValue]>;
  const listenTo = uncurry(win.EventTarget.prototype.addEventListener);
  // `matches` on anything but an element throws: a test no script can redefine.
  const isElement = (x: unknown): x is Element => {
    try {
      matches(x, '*');
      return true;
    } catch {
      return false;
    }
  };
  const describe = (el: Element) => ({
    id: el.id || null,
    name: el.getAttribute('name'),
    text: (el.textContent || '').trim().slice(0, 200),
    value: typeof (el as HTMLInputElement).value === 'string' ? (el as HTMLInputElement).value : null,
  });
  const fields = (form: HTMLFormElement) => {
    const out: Record<string, string | string[]> = {};
    const it = entries(new FD(form));
    for (let step = next(it); !step.done; step = next(it)) {
      const key = step.value[0];
      const value = step.value[1];
      if (typeof value !== 'string') continue;
      const had = out[key];
      out[key] = had === undefined ? value : ([] as string[]).concat(had, value);
    }
    return out;
  };
  const submit = (form: HTMLFormElement, submitter: Element | null) =>
    send({ type: 'submit', form: form.id || form.getAttribute('name') || null, submitter: submitter ? describe(submitter) : null, data: fields(form) });
  listenTo(
    doc,
    'click',
    (e: Event) => {
      const target = targetOf(e);
      const el = isElement(target) ? closest(target, 'button, input[type=submit], input[type=button], a, area, [data-sandtab-event]') : null;
      if (!el) return;
      const form = closest(el, 'form') as HTMLFormElement | null;
      const submits = matches(el, 'input[type=submit], button:not([type]), button[type=submit]');
      if ((form && submits) || matches(el, 'a, area')) prevent(e);
      // A script's `el.click()` or `dispatchEvent` is not a person's click.
      if (!e.isTrusted) return;
      if (form && submits) submit(form, el);
      else send({ type: 'click', tag: el.localName, target: describe(el) });
    },
    true,
  );
  // Submissions are reported from the click or key that made them (`requestSubmit()`
  // by a script fires a submit event too); the form itself never goes anywhere.
  listenTo(doc, 'submit', (e: Event) => prevent(e), true);
  listenTo(
    doc,
    'keydown',
    (e: Event) => {
      const target = targetOf(e);
      if (keyOf(e) !== 'Enter' || !isElement(target) || !matches(target, 'input')) return;
      const form = closest(target, 'form') as HTMLFormElement | null;
      if (!form) return;
      prevent(e);
      if (e.isTrusted) submit(form, null);
    },
    true,
  );
}

// Runs inside the frame before the sandbox's HTML when scripts are on. It keeps the
// port the page sends (only the page's first message carrying one) in its closure, and
// takes every built-in it uses now, before the sandbox's scripts could replace them.
// Events go to the page as objects (structured clone: no `toJSON`, no getters of ours
// to replace); the page turns them into JSON.
const IN_FRAME_BRIDGE = `(() => {
  const apply = Reflect.apply;
  const uncurry = (f) => (self, ...args) => apply(f, self, args);
  const getter = (proto, name) => uncurry(Object.getOwnPropertyDescriptor(proto, name).get);
  const post = uncurry(MessagePort.prototype.postMessage);
  const sourceOf = getter(MessageEvent.prototype, 'source');
  const dataOf = getter(MessageEvent.prototype, 'data');
  const portsOf = getter(MessageEvent.prototype, 'ports');
  const stop = uncurry(Event.prototype.stopImmediatePropagation);
  const push = uncurry(Array.prototype.push);
  const page = parent.parent;
  let port = null;
  const early = [];
  const send = (event) => {
    try {
      if (port) post(port, event);
      else if (early.length < ${MAX_QUEUED}) push(early, event);
    } catch {}
  };
  addEventListener('message', (e) => {
    if (port || sourceOf(e) !== page) return;
    const data = dataOf(e);
    const ports = portsOf(e);
    if (!data || data.sandtabUiPort !== 1 || !ports[0]) return;
    stop(e);
    port = ports[0];
    for (let i = 0; i < early.length; i++) send(early[i]);
  }, true);
  const message = (data) => send({ type: 'message', data });
  Object.defineProperty(window, 'sandtab', { value: Object.freeze({ send: message }), enumerable: true });
  (${listen.toString()})(document, send);
})();`;

export interface UiAction {
  action: 'show' | 'wait' | 'close';
  html?: string;
  title?: string;
  timeoutMs?: number;
}

export class UiFrame {
  readonly #place: () => HTMLElement | null;
  readonly #scripts: () => boolean;
  #frame: HTMLIFrameElement | null = null;
  #port: MessagePort | null = null;
  #queue: string[] = [];
  #waiter: ((event: string | null) => void) | null = null;

  /** `place`: the element the frame goes in; `scripts`: whether the frame's scripts run
   * (both asked at each `show`). */
  constructor(place: () => HTMLElement | null, scripts: () => boolean = () => false) {
    this.#place = place;
    this.#scripts = scripts;
  }

  /** Carries out one action from the sandbox; for `wait`, the next event's JSON or null. */
  async run(action: UiAction): Promise<string | null> {
    switch (action.action) {
      case 'show':
        this.show(String(action.html ?? ''), String(action.title ?? 'sandbox ui'));
        return null;
      case 'wait':
        return this.wait(Number(action.timeoutMs ?? 0));
      case 'close':
        this.close();
        return null;
    }
  }

  show(html: string, title: string): void {
    const place = this.#place();
    if (!place) throw Object.assign(new Error('the page gives no place to show a user interface'), { code: 'CAP_DENIED' });
    this.close();
    const scripts = this.#scripts();
    const prelude = scripts ? `<script>${IN_FRAME_BRIDGE}</script>` : '';
    const frame = containedFrame(
      `<!doctype html><meta charset="utf-8"><meta http-equiv="Content-Security-Policy" content="${UI_POLICY}">${prelude}${html}`,
      { scripts, title, className: 'sandtab-ui' },
    );
    frame.addEventListener('load', () => {
      if (this.#frame !== frame) return;
      if (scripts) this.#connect(frame);
      else this.#listenFromPage(frame);
    });
    place.append(frame);
    this.#frame = frame;
  }

  /** The next event, or null after `timeoutMs`. */
  wait(timeoutMs: number): Promise<string | null> {
    const queued = this.#queue.shift();
    if (queued !== undefined) return Promise.resolve(queued);
    if (!this.#frame) return Promise.reject(Object.assign(new Error('no ui is shown: use `ui show FILE` first'), { code: 'CAP_DENIED' }));
    this.#waiter?.(null);
    return new Promise((resolve) => {
      const timer = setTimeout(() => finish(null), Math.max(0, timeoutMs));
      const finish = (event: string | null) => {
        clearTimeout(timer);
        if (this.#waiter === finish) this.#waiter = null;
        resolve(event);
      };
      this.#waiter = finish;
    });
  }

  /** Ends a pending wait with no event (the user stopped the command or the turn). */
  stopWaiting(): void {
    this.#waiter?.(null);
  }

  close(): void {
    this.#port?.close();
    this.#port = null;
    this.#frame?.remove();
    this.#frame = null;
    this.#queue = [];
    this.#waiter?.(null);
  }

  /** Scripts on: hands the bridge inside the frame its end of a private channel. */
  #connect(frame: HTMLIFrameElement): void {
    const inner = contentWindow(frame);
    if (!inner) return;
    const channel = new MessageChannel();
    channel.port1.onmessage = (message) => {
      if (this.#frame !== frame || typeof message.data !== 'object' || message.data === null) return;
      let json: string;
      try {
        json = JSON.stringify(message.data);
      } catch {
        return;
      }
      this.#receive(json);
    };
    this.#port = channel.port1;
    inner.postMessage({ sandtabUiPort: 1 }, '*', [channel.port2]);
  }

  /** Scripts off: the page listens to the frame's document itself. */
  #listenFromPage(frame: HTMLIFrameElement): void {
    const doc = contentDocument(frame);
    if (!doc) return;
    holdLinks(doc);
    listen(doc, (event) => {
      if (this.#frame !== frame) return;
      let json: string;
      try {
        json = JSON.stringify(event);
      } catch {
        return;
      }
      this.#receive(json);
    });
  }

  #receive(json: string): void {
    if (json.length > MAX_EVENT_BYTES) return;
    if (this.#waiter) {
      this.#waiter(json);
      return;
    }
    this.#queue.push(json);
    if (this.#queue.length > MAX_QUEUED) this.#queue.shift();
  }
}
