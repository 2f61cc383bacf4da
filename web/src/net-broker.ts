// The page's side of the sandbox's network door. The runtime's gate has already checked
// a request against the network policy; this makes it from a hidden same-origin frame
// whose Content Security Policy (`connect-src`) lists only the origins the gate allows,
// so the browser itself refuses any redirect hop outside them before it is sent (the
// browser hides where a redirect points, so nothing else could check each hop). Cookies
// are never sent; headers whose values the page keeps are injected here, and their
// values are scrubbed from what comes back, in every encoding `Scrubber` knows (kept in
// step with crates/caps/src/scrub.rs), before anything reaches the worker: body, header
// values, status text, final URL and error messages; a header whose name holds one is
// renamed `x-sandtab-redacted`. The size limit holds for the body as received, before
// scrubbing (the gate allows for `[redacted]` being longer than what it replaced).
//
// The runtime's gate lets the browser follow a redirect (`followWithin`) only where every
// hop would be allowed whatever its path and method; otherwise `followWithin` is null and
// the request is made with `redirect: 'manual'`, so a hop nobody can see is never sent.

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
/** The name a response header is given when its own name holds a secret. */
const REDACTED_HEADER = 'x-sandtab-redacted';

interface Frame {
  window: Window & typeof globalThis;
  /** URIs the frame's policy blocked, in order. */
  violations: string[];
}

export class NetBroker {
  readonly #frames = new Map<string, Promise<Frame>>();
  /** Per grant: header name (lower case) -> value, kept on the page only. */
  readonly #secrets: Map<string, string>[];
  readonly #scrubber: Scrubber;

  constructor(secrets: Map<string, string>[]) {
    this.#secrets = secrets;
    this.#scrubber = new Scrubber(secrets.flatMap((grant) => [...grant.values()]));
  }

  async fetch(request: NetRequest): Promise<NetResponse> {
    try {
      return await this.#fetch(request);
    } catch (err) {
      // A message may quote a URL a server chose (a blocked hop).
      if (err instanceof NetError) throw new NetError(err.code, this.#scrubber.text(err.message));
      throw err;
    }
  }

  async #fetch(request: NetRequest): Promise<NetResponse> {
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
    const scrubber = this.#scrubber;
    const responseHeaders: [string, string][] = [];
    response.headers.forEach((value, name) => {
      responseHeaders.push([scrubber.inName(name) ? REDACTED_HEADER : name, scrubber.text(value)]);
    });
    return {
      status: response.status,
      statusText: scrubber.text(response.statusText),
      headers: responseHeaders,
      url: scrubber.text(response.url || request.url),
      redirected: response.redirected,
      body: scrubber.bytes(body),
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

/** The body of `response`, refused with CAP_NET_TOO_LARGE past `max` bytes (declared or
 * as received). Node's network door uses it too. */
export async function readCapped(response: Response, max: number, url: string): Promise<Uint8Array> {
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

// ---- Scrubbing: the same needles as crates/caps/src/scrub.rs (keep them in step) ----
//
// Strings below hold bytes, one character per byte (0..255), so that offsets in them are
// offsets in the bytes.

/** The shortest part of a value (other than the whole value) scrubbed on its own. */
const MIN_PART = 6;
/** The shortest encoded form looked for. */
const MIN_NEEDLE = 8;
const B64_STD = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
const B64_URL = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
/** Kept as they are besides ASCII letters and digits; null: every byte encoded. */
const PERCENT_KEPT: (string | null)[] = [null, '', '-._~', "-_.!~*'()", '*-._', ";,/?:@&=+$-_.!~*'()#", '_.-~/'];

/** Replaces every form of the page's secrets (see scrub.rs) with `[redacted]`. */
export class Scrubber {
  /** Needles matched exactly (base64). */
  readonly exact: string[];
  /** Needles matched ignoring ASCII case, lower-cased. */
  readonly anyCase: string[];
  /** Every needle, lower-cased: the exact ones first (then checked against
   * `#exactBytes`), then the others; also for header names. */
  readonly #names: string[];
  /** The exact needles as bytes, to check a place their lower-cased form is found. */
  readonly #exactBytes: Uint8Array[];
  /** More than the longest needle: a match is one number, start * #span + length. */
  readonly #span: number;

  constructor(secrets: string[]) {
    const exact = new Set<string>();
    const anyCase = new Set<string>();
    for (const secret of secrets) {
      for (const part of parts(secret)) addPart(part, exact, anyCase);
    }
    this.exact = [...exact];
    this.anyCase = [...anyCase].map(asciiLower);
    this.#exactBytes = this.exact.map((needle) => Uint8Array.from(needle, (c) => c.charCodeAt(0)));
    this.#names = [...this.exact.map(asciiLower), ...this.anyCase];
    this.#span = Math.max(0, ...this.#names.map((n) => n.length)) + 1;
  }

  /** Whether a header name holds a form of a secret, in any ASCII case. */
  inName(name: string): boolean {
    const lower = asciiLower(utf8(name));
    return this.#names.some((needle) => lower.includes(needle));
  }

  /** `bytes` with every form of every secret replaced: every byte a match covers, a
   * run of overlapping matches by one `[redacted]`. Lean on large bodies: a match is a
   * number, not an object, and the output is built in one allocation. */
  bytes(bytes: Uint8Array): Uint8Array {
    if (this.exact.length === 0 && this.anyCase.length === 0) return bytes;
    const span = this.#span;
    if (!Number.isSafeInteger(bytes.length * span)) throw new Error('scrub: the body is too large');
    // One text, lower-cased: an exact needle is looked for lower-cased too, and each
    // place it is found checked against the bytes.
    const lower = searchable(asciiLowerBytes(bytes));
    const found: number[] = [];
    this.#names.forEach((needle, n) => {
      const exact = this.#exactBytes[n];
      for (let at = lower.indexOf(needle); at !== -1; at = lower.indexOf(needle, at + 1)) {
        if (exact !== undefined && !startsAt(bytes, at, exact)) continue;
        found.push(at * span + needle.length);
      }
    });
    if (found.length === 0) return bytes;
    // By start (ties in any order: a run takes the furthest end).
    const spans = Float64Array.from(found).sort();
    // The runs, [start, end) pairs, and the output's length.
    const runs = new Float64Array(spans.length * 2);
    let count = 0;
    let length = bytes.length;
    for (let i = 0; i < spans.length; ) {
      const start = Math.floor(spans[i] / span);
      let end = start + (spans[i] % span);
      for (i++; i < spans.length; i++) {
        const next = Math.floor(spans[i] / span);
        if (next >= end) break;
        end = Math.max(end, next + (spans[i] % span));
      }
      runs[count++] = start;
      runs[count++] = end;
      length += REDACTED.length - (end - start);
    }
    const out = new Uint8Array(length);
    let at = 0;
    let put = 0;
    const copy = (from: number, to: number) => {
      if (to - from > 256) out.set(bytes.subarray(from, to), put);
      else for (let j = from; j < to; j++) out[put + j - from] = bytes[j];
      put += to - from;
    };
    for (let r = 0; r < count; r += 2) {
      copy(at, runs[r]);
      out.set(REDACTED, put);
      put += REDACTED.length;
      at = runs[r + 1];
    }
    copy(at, bytes.length);
    return out;
  }

  /** `text` with every form of every secret replaced. */
  text(text: string): string {
    if (this.exact.length === 0 && this.anyCase.length === 0) return text;
    const bytes = new TextEncoder().encode(text);
    const scrubbed = this.bytes(bytes);
    return scrubbed === bytes ? text : new TextDecoder().decode(scrubbed);
  }
}

/** `bytes` with every occurrence of each secret, in every encoding known, replaced. */
export function scrub(bytes: Uint8Array, secrets: string[]): Uint8Array {
  return new Scrubber(secrets).bytes(bytes);
}

function byteString(bytes: Uint8Array): string {
  let out = '';
  for (let i = 0; i < bytes.length; i += 8192) {
    // `apply` rather than a spread: no iterator over every byte.
    out += String.fromCharCode.apply(null, bytes.subarray(i, i + 8192) as unknown as number[]);
  }
  return out;
}

const DECODER = new TextDecoder();

/** `bytes` as a byte string; ASCII (most text) decoded natively, which is faster. */
function searchable(bytes: Uint8Array): string {
  for (let i = 0; i < bytes.length; i++) if (bytes[i] > 127) return byteString(bytes);
  return DECODER.decode(bytes);
}

function startsAt(bytes: Uint8Array, at: number, needle: Uint8Array): boolean {
  for (let i = 0; i < needle.length; i++) if (bytes[at + i] !== needle[i]) return false;
  return true;
}

/** `bytes` with ASCII upper case lowered (the same array if there is none). */
function asciiLowerBytes(bytes: Uint8Array): Uint8Array {
  let out: Uint8Array | null = null;
  for (let i = 0; i < bytes.length; i++) {
    const b = bytes[i];
    if (b >= 65 && b <= 90) {
      out ??= bytes.slice();
      out[i] = b + 32;
    }
  }
  return out ?? bytes;
}

function utf8(text: string): string {
  return byteString(new TextEncoder().encode(text));
}

function asciiLower(text: string): string {
  return text.replace(/[A-Z]+/g, (upper) => upper.toLowerCase());
}

/** The parts of a secret value scrubbed on their own (as byte strings). */
function parts(value: string): string[] {
  if (value.length === 0) return [];
  const out = [utf8(value)];
  const trimmed = value.trim();
  const space = trimmed.search(/[ \t\n\f\r]/);
  if (space > 0) {
    const scheme = trimmed.slice(0, space);
    const credentials = utf8(trimmed.slice(space + 1).trim());
    if (scheme.length <= 32 && /^[A-Za-z0-9_-]+$/.test(scheme) && credentials.length >= MIN_PART) {
      out.push(credentials);
      const decoded = scheme.toLowerCase() === 'basic' ? base64Decode(credentials) : null;
      const colon = decoded?.indexOf(':') ?? -1;
      if (decoded !== null && colon !== -1) {
        const password = decoded.slice(colon + 1);
        if (password.length >= MIN_PART) out.push(password);
        out.push(decoded);
      }
    }
  }
  return out.filter((part) => part.length > 0);
}

function addPart(part: string, exact: Set<string>, anyCase: Set<string>): void {
  const add = (needle: string) => {
    if (needle.length >= MIN_NEEDLE || needle === part) anyCase.add(needle);
  };
  add(part);
  add([...part].map((c) => hexByte(c.charCodeAt(0))).join(''));
  for (const kept of PERCENT_KEPT) {
    for (const plus of [false, true]) add(percent(part, kept, plus));
  }
  const text = decodeUtf8(part);
  if (text !== null) {
    for (let style = 0; style < 8; style++) add(utf8(json(text, (style & 1) !== 0, (style & 2) !== 0, (style & 4) !== 0)));
    add(utf8(jsonAll(text)));
    add(utf8(htmlNumeric(text, false)));
    add(utf8(htmlNumeric(text, true)));
    for (const quote of ['&quot;', '&#34;', '&#x22;']) {
      for (const apos of ['&#39;', '&#x27;', '&apos;']) add(utf8(htmlSpecial(text, quote, apos)));
    }
  }
  for (const alphabet of [B64_STD, B64_URL]) {
    const forms = [base64(part, alphabet, true), base64(part, alphabet, false)];
    for (let align = 0; align < 3; align++) forms.push(base64Core(part, align, alphabet));
    for (const form of forms) {
      if (form.length < MIN_NEEDLE) continue;
      if (/[+/=]/.test(form)) {
        anyCase.add(percent(form, "-_.!~*'()", false));
        exact.add(form.replaceAll('/', '\\/'));
      }
      exact.add(form);
    }
  }
}

function hexByte(b: number): string {
  return b.toString(16).padStart(2, '0');
}

function isAlnum(b: number): boolean {
  return (b >= 48 && b <= 57) || (b >= 65 && b <= 90) || (b >= 97 && b <= 122);
}

function percent(bytes: string, kept: string | null, plus: boolean): string {
  let out = '';
  for (const c of bytes) {
    const b = c.charCodeAt(0);
    if (b === 32 && plus) out += '+';
    else if (kept !== null && (isAlnum(b) || kept.includes(c))) out += c;
    else out += '%' + hexByte(b);
  }
  return out;
}

function decodeUtf8(bytes: string): string | null {
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(Uint8Array.from(bytes, (c) => c.charCodeAt(0)));
  } catch {
    return null;
  }
}

function escapeU(c: string): string {
  let out = '';
  for (let i = 0; i < c.length; i++) out += '\\u' + c.charCodeAt(i).toString(16).padStart(4, '0');
  return out;
}

const JSON_NAMED: Record<string, string> = { '"': '\\"', '\\': '\\\\', '\b': '\\b', '\f': '\\f', '\n': '\\n', '\r': '\\r', '\t': '\\t' };

function json(text: string, slash: boolean, html: boolean, ascii: boolean): string {
  let out = '';
  for (const c of text) {
    const code = c.codePointAt(0) ?? 0;
    if (JSON_NAMED[c] !== undefined) out += JSON_NAMED[c];
    else if (c === '/' && slash) out += '\\/';
    else if ('<>&\''.includes(c) && html) out += escapeU(c);
    else if (code < 32 || (ascii && code > 127)) out += escapeU(c);
    else out += c;
  }
  return out;
}

function jsonAll(text: string): string {
  let out = '';
  for (const c of text) out += escapeU(c);
  return out;
}

function htmlNumeric(text: string, hex: boolean): string {
  let out = '';
  for (const c of text) {
    const code = c.codePointAt(0) ?? 0;
    out += hex ? `&#x${code.toString(16)};` : `&#${code};`;
  }
  return out;
}

function htmlSpecial(text: string, quote: string, apos: string): string {
  const named: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': quote, "'": apos };
  let out = '';
  for (const c of text) out += named[c] ?? c;
  return out;
}

function base64(bytes: string, alphabet: string, pad: boolean): string {
  let out = '';
  for (let i = 0; i < bytes.length; i += 3) {
    const n = Math.min(3, bytes.length - i);
    const v = (bytes.charCodeAt(i) << 16) | ((n > 1 ? bytes.charCodeAt(i + 1) : 0) << 8) | (n > 2 ? bytes.charCodeAt(i + 2) : 0);
    for (let j = 0; j <= n; j++) out += alphabet[(v >> (18 - 6 * j)) & 63];
    if (pad) out += '='.repeat(3 - n);
  }
  return out;
}

function base64Core(bytes: string, align: number, alphabet: string): string {
  const encoded = base64('\0'.repeat(align) + bytes, alphabet, false);
  const start = Math.ceil((align * 8) / 6);
  const end = Math.max(start, Math.floor(((align + bytes.length) * 8) / 6));
  return encoded.slice(start, end);
}

/** Standard or URL-safe base64, padded or not, as a byte string; null if it is not. */
function base64Decode(text: string): string | null {
  let bits = 0;
  let count = 0;
  let out = '';
  for (const c of text.replace(/=+$/, '')) {
    const v = B64_STD.indexOf(c === '-' ? '+' : c === '_' ? '/' : c);
    if (v === -1) return null;
    bits = (bits << 6) | v;
    count += 6;
    if (count >= 8) {
      count -= 8;
      out += String.fromCharCode((bits >> count) & 255);
      bits &= (1 << count) - 1;
    }
  }
  return out;
}
