// The page's side of the sandbox's network door. The runtime's gate has already checked
// a request against the network policy; this makes it from a hidden same-origin frame
// whose Content Security Policy (`connect-src`) lists only the origins the gate allows,
// so the browser itself refuses any redirect hop outside them before it is sent (the
// browser hides where a redirect points, so nothing else could check each hop). Cookies
// are never sent; headers whose values the page keeps are injected here, and their
// values are scrubbed from what comes back.

/** A request as the runtime's gate passes it (see crates/web/src/doors.rs). */
export interface NetRequest {
  method: string;
  url: string;
  headers: [string, string][];
  body: Uint8Array | null;
  /** Index of the grant that allowed it. */
  grant: number;
  /** Header names to inject from the page's secrets for that grant. */
  inject: string[];
  /** Origins a redirect may pass through, or null: do not follow redirects. */
  followWithin: string[] | null;
  maxRedirects: number;
  maxResponseBytes: number;
}

export interface NetResponse {
  status: number;
  statusText: string;
  headers: [string, string][];
  url: string;
  redirected: boolean;
  body: Uint8Array;
}

/** An error the runtime turns into a denial with this code. */
export class NetError extends Error {
  readonly code: string;
  constructor(code: string, message: string) {
    super(message);
    this.code = code;
  }
}

/** How long a request may take, answer included. */
const REQUEST_TIMEOUT_MS = 120_000;
const REDACTED = new TextEncoder().encode('[redacted]');

interface Frame {
  window: Window & typeof globalThis;
  /** URIs the frame's policy blocked, in order. */
  violations: string[];
}

export class NetBroker {
  readonly #frames = new Map<string, Promise<Frame>>();
  /** Per grant: header name (lower case) -> value, kept on the page only. */
  readonly #secrets: Map<string, string>[];

  constructor(secrets: Map<string, string>[]) {
    this.#secrets = secrets;
  }

  /** Every secret value, for scrubbing. */
  #allSecrets(): string[] {
    return this.#secrets.flatMap((grant) => [...grant.values()]).filter((value) => value.length > 0);
  }

  async fetch(request: NetRequest): Promise<NetResponse> {
    const own = new URL(request.url).origin;
    const origins = request.followWithin ?? [own];
    const frame = await this.#frame(origins);
    const headers = new frame.window.Headers();
    for (const [name, value] of request.headers) {
      try {
        headers.append(name, value);
      } catch {
        throw new NetError('CAP_BAD_ARGS', `the header ${JSON.stringify(name)} is not valid`);
      }
    }
    const secrets = this.#secrets[request.grant];
    for (const name of request.inject) {
      const value = secrets?.get(name);
      if (value !== undefined) headers.set(name, value);
    }
    const seen = frame.violations.length;
    let response: Response;
    try {
      response = await frame.window.fetch(request.url, {
        method: request.method,
        headers,
        body: request.body && request.method !== 'GET' && request.method !== 'HEAD' ? (request.body as Uint8Array<ArrayBuffer>) : undefined,
        redirect: request.followWithin ? 'follow' : 'manual',
        credentials: 'omit',
        cache: 'no-store',
        referrerPolicy: 'no-referrer',
        signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
      });
    } catch (err) {
      // The browser reports a policy violation in a task of its own, which may come
      // after the fetch has failed: give it a moment.
      for (let i = 0; i < 10 && frame.violations.length === seen; i++) {
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      const blocked = frame.violations.slice(seen);
      if (blocked.length > 0) {
        // Browsers may report the first URL rather than the hop, to hide where it pointed.
        const where = blocked[0] !== request.url && blocked[0] !== 'another origin' ? ` to ${blocked[0]}` : '';
        throw new NetError(
          'CAP_NET_REDIRECT',
          `${request.url} redirected${where} outside the origins this request may reach (${origins.join(', ')}); the browser refused that hop before sending it`,
        );
      }
      const reason = err instanceof Error ? err.message : String(err);
      if (err instanceof DOMException && err.name === 'TimeoutError') {
        throw new NetError('CAP_NET_FAILED', `${request.url}: no answer within ${REQUEST_TIMEOUT_MS / 1000} s`);
      }
      throw new NetError(
        'CAP_NET_FAILED',
        `${request.url}: the request failed (${reason}; unreachable, or the server does not allow this page's origin by CORS)`,
      );
    }
    if (response.type === 'opaqueredirect') {
      throw new NetError(
        'CAP_NET_REDIRECT',
        `${request.url} answered with a redirect; browsers do not show where it points, so it is only followed when asked (curl -L), with every hop checked`,
      );
    }
    const body = await readCapped(response, request.maxResponseBytes, request.url);
    const scrubbed = scrub(body, this.#allSecrets());
    const responseHeaders: [string, string][] = [];
    response.headers.forEach((value, name) => {
      responseHeaders.push([name, scrubText(value, this.#allSecrets())]);
    });
    return {
      status: response.status,
      statusText: response.statusText,
      headers: responseHeaders,
      url: response.url || request.url,
      redirected: response.redirected,
      body: scrubbed,
    };
  }

  /** The frame whose policy allows exactly `origins`, made on first use. */
  #frame(origins: string[]): Promise<Frame> {
    const key = [...origins].sort().join(' ');
    let frame = this.#frames.get(key);
    if (!frame) {
      frame = makeFrame(origins);
      this.#frames.set(key, frame);
      frame.catch(() => this.#frames.delete(key));
    }
    return frame;
  }

  /** Removes the frames. */
  dispose(): void {
    for (const frame of this.#frames.values()) {
      void frame.then((f) => f.window.frameElement?.remove()).catch(() => {});
    }
    this.#frames.clear();
  }
}

function makeFrame(origins: string[]): Promise<Frame> {
  if (typeof document === 'undefined') {
    return Promise.reject(new NetError('CAP_NET_FAILED', 'network requests need a page (a document) to make them from'));
  }
  for (const origin of origins) {
    // Origins come from the checked policy; refuse anything that could break the header.
    if (!/^https?:\/\/[A-Za-z0-9.*\-[\]:]+$/.test(origin)) {
      return Promise.reject(new NetError('CAP_NET_DENIED', `${origin} cannot be put in a Content Security Policy`));
    }
  }
  const connect = origins.length > 0 ? origins.join(' ') : "'none'";
  const policy = `default-src 'none'; connect-src ${connect}`;
  const iframe = document.createElement('iframe');
  iframe.hidden = true;
  iframe.setAttribute('aria-hidden', 'true');
  iframe.tabIndex = -1;
  iframe.dataset.sandtabNet = connect;
  iframe.srcdoc = `<!doctype html><meta http-equiv="Content-Security-Policy" content="${policy}">`;
  return new Promise((resolve, reject) => {
    iframe.onload = () => {
      const win = iframe.contentWindow as (Window & typeof globalThis) | null;
      if (!win || !iframe.contentDocument) {
        reject(new NetError('CAP_NET_FAILED', 'the network frame could not start'));
        return;
      }
      const frame: Frame = { window: win, violations: [] };
      iframe.contentDocument.addEventListener('securitypolicyviolation', (event) => {
        frame.violations.push(event.blockedURI || 'another origin');
      });
      resolve(frame);
    };
    document.body.appendChild(iframe);
  });
}

async function readCapped(response: Response, max: number, url: string): Promise<Uint8Array> {
  const declared = Number(response.headers.get('content-length'));
  const tooLarge = () =>
    new NetError('CAP_NET_TOO_LARGE', `${url}: the response is larger than the ${max} bytes allowed`);
  if (declared > max) {
    await response.body?.cancel().catch(() => {});
    throw tooLarge();
  }
  if (!response.body) return new Uint8Array(0);
  const reader = response.body.getReader();
  const parts: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.length;
    if (total > max) {
      await reader.cancel().catch(() => {});
      throw tooLarge();
    }
    parts.push(value);
  }
  const body = new Uint8Array(total);
  let at = 0;
  for (const part of parts) {
    body.set(part, at);
    at += part.length;
  }
  return body;
}

/** `bytes` with every occurrence of each secret replaced by `[redacted]`. */
export function scrub(bytes: Uint8Array, secrets: string[]): Uint8Array {
  let out = bytes;
  for (const secret of secrets) {
    const needle = new TextEncoder().encode(secret);
    if (needle.length === 0) continue;
    const parts: Uint8Array[] = [];
    let start = 0;
    let found = false;
    for (let i = 0; i + needle.length <= out.length; ) {
      let match = true;
      for (let j = 0; j < needle.length; j++) {
        if (out[i + j] !== needle[j]) {
          match = false;
          break;
        }
      }
      if (match) {
        parts.push(out.subarray(start, i), REDACTED);
        i += needle.length;
        start = i;
        found = true;
      } else {
        i++;
      }
    }
    if (!found) continue;
    parts.push(out.subarray(start));
    const joined = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
    let at = 0;
    for (const part of parts) {
      joined.set(part, at);
      at += part.length;
    }
    out = joined;
  }
  return out;
}

function scrubText(text: string, secrets: string[]): string {
  return secrets.reduce((value, secret) => (secret ? value.split(secret).join('[redacted]') : value), text);
}
