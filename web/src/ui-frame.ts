// The page's side of the sandbox's `ui` door: HTML from the sandbox shown in an iframe
// with `sandbox="allow-scripts"` (no `allow-same-origin`: an opaque origin that can
// read nothing of the page, its cookies or its storage), a strict CSP (no network, no
// form submission), and a small bridge that turns clicks, form submissions and
// `sandtab.send(data)` into JSON events for the sandbox's `ui wait`.

/** The Content Security Policy of every frame: inline scripts and styles run; nothing
 * is fetched or submitted anywhere. */
export const UI_POLICY =
  "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; img-src data: blob:; font-src data:; media-src data: blob:; form-action 'none'; base-uri 'none'";

/** The largest event the frame may send (bytes of JSON); larger ones are dropped. */
const MAX_EVENT_BYTES = 64 * 1024;
/** Events kept while nobody waits; older ones are dropped. */
const MAX_QUEUED = 100;

// Runs inside the frame, before the sandbox's HTML.
const BRIDGE = `(() => {
  const send = (event) => parent.postMessage({ sandtabUi: 1, event }, '*');
  const describe = (el) => ({ id: el.id || null, name: el.getAttribute('name'), text: (el.textContent || '').trim().slice(0, 200), value: typeof el.value === 'string' ? el.value : null });
  const fields = (form) => {
    const out = {};
    for (const [key, value] of new FormData(form)) {
      if (typeof value !== 'string') continue;
      out[key] = key in out ? [].concat(out[key], value) : value;
    }
    return out;
  };
  const submit = (form, submitter) => send({ type: 'submit', form: form.id || form.getAttribute('name') || null, submitter: submitter ? describe(submitter) : null, data: fields(form) });
  window.sandtab = Object.freeze({ send: (data) => send({ type: 'message', data }) });
  document.addEventListener('click', (e) => {
    const el = e.target instanceof Element && e.target.closest('button, input[type=submit], input[type=button], a, [data-sandtab-event]');
    if (!el) return;
    const form = el.form || el.closest('form');
    const submits = el.matches('input[type=submit], button:not([type]), button[type=submit]');
    if (form && submits) { e.preventDefault(); submit(form, el); return; }
    if (el.tagName === 'A') e.preventDefault();
    send({ type: 'click', tag: el.tagName.toLowerCase(), target: describe(el) });
  }, true);
  document.addEventListener('submit', (e) => { e.preventDefault(); submit(e.target, e.submitter); }, true);
  document.addEventListener('keydown', (e) => {
    const el = e.target;
    if (e.key === 'Enter' && el instanceof HTMLInputElement && el.form) { e.preventDefault(); submit(el.form, null); }
  }, true);
})();`;

export interface UiAction {
  action: 'show' | 'wait' | 'close';
  html?: string;
  title?: string;
  timeoutMs?: number;
}

export class UiFrame {
  readonly #place: () => HTMLElement | null;
  #frame: HTMLIFrameElement | null = null;
  #queue: string[] = [];
  #waiter: ((event: string | null) => void) | null = null;
  readonly #onMessage = (event: MessageEvent) => this.#receive(event);

  /** `place`: the element the frame goes in (asked at each `show`). */
  constructor(place: () => HTMLElement | null) {
    this.#place = place;
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
    const frame = document.createElement('iframe');
    frame.setAttribute('sandbox', 'allow-scripts');
    frame.setAttribute('referrerpolicy', 'no-referrer');
    frame.title = title;
    frame.className = 'sandtab-ui';
    frame.srcdoc =
      `<!doctype html><meta charset="utf-8"><meta http-equiv="Content-Security-Policy" content="${UI_POLICY}">` +
      `<script>${BRIDGE}</script>${html}`;
    window.addEventListener('message', this.#onMessage);
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
    window.removeEventListener('message', this.#onMessage);
    this.#frame?.remove();
    this.#frame = null;
    this.#queue = [];
    this.#waiter?.(null);
  }

  #receive(message: MessageEvent): void {
    // Only the frame's own messages; its origin is opaque ("null"), so check the source.
    if (!this.#frame || message.source !== this.#frame.contentWindow) return;
    const data = message.data as { sandtabUi?: number; event?: unknown } | null;
    if (!data || data.sandtabUi !== 1) return;
    let json: string;
    try {
      json = JSON.stringify(data.event);
    } catch {
      return;
    }
    if (json === undefined || json.length > MAX_EVENT_BYTES) return;
    if (this.#waiter) {
      this.#waiter(json);
      return;
    }
    this.#queue.push(json);
    if (this.#queue.length > MAX_QUEUED) this.#queue.shift();
  }
}
