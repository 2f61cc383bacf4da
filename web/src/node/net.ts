// The network door under Node: makes a request the runtime's gate allowed, with Node's
// `fetch`. There is no Content Security Policy to hold redirects to the allowed origins,
// so every request is made with `redirect: 'manual'` and redirects are followed here,
// one hop at a time: only when the gate said so (`followWithin`), only to those origins
// (a hop elsewhere is refused before it is sent), at most `maxRedirects`. Otherwise the
// redirect goes back to the gate as it is, which checks and follows it. As in the
// browser (net-broker.ts): no cookies, the page's secret headers injected here (and not
// sent on to another origin), their values scrubbed from everything that comes back,
// the body capped at `maxResponseBytes` as received.

import { NetError, Scrubber, readCapped, type NetRequest, type NetResponse } from '../net-broker.js';
import type { NetDoor } from '../host.js';

/** How long a request may take, answer included (as in the browser). */
const REQUEST_TIMEOUT_MS = 120_000;
/** The name a response header is given when its own name holds a secret. */
const REDACTED_HEADER = 'x-sandtab-redacted';
const REDIRECTS = new Set([301, 302, 303, 307, 308]);

/** Whether `url`'s origin is `pattern` (an origin, its host maybe `*.domain`). */
export function originMatches(pattern: string, url: URL): boolean {
  let wanted: URL;
  try {
    wanted = new URL(pattern.replace('://*.', '://wildcard.'));
  } catch {
    return false;
  }
  if (wanted.protocol !== url.protocol || wanted.port !== url.port) return false;
  if (pattern.includes('://*.')) {
    const domain = wanted.hostname.slice('wildcard'.length);
    return url.hostname.endsWith(domain) && url.hostname.length > domain.length;
  }
  return wanted.hostname === url.hostname;
}

export class NodeNetBroker implements NetDoor {
  /** Per grant: header name (lower case) -> value, kept on this side only. */
  readonly #secrets: Map<string, string>[];
  readonly #scrubber: Scrubber;
  readonly #aborts = new Set<AbortController>();

  constructor(secrets: Map<string, string>[]) {
    this.#secrets = secrets;
    this.#scrubber = new Scrubber(secrets.flatMap((grant) => [...grant.values()]));
  }

  async fetch(request: NetRequest): Promise<NetResponse> {
    const abort = new AbortController();
    this.#aborts.add(abort);
    const timer = setTimeout(() => abort.abort(), REQUEST_TIMEOUT_MS);
    try {
      return await this.#fetch(request, abort.signal);
    } catch (err) {
      // A message may quote a URL a server chose (a refused hop).
      if (err instanceof NetError) throw new NetError(err.code, this.#scrubber.text(err.message));
      throw err;
    } finally {
      clearTimeout(timer);
      this.#aborts.delete(abort);
    }
  }

  async #fetch(request: NetRequest, signal: AbortSignal): Promise<NetResponse> {
    const first = new URL(request.url);
    const headers = new Headers();
    for (const [name, value] of request.headers) {
      try {
        headers.append(name, value);
      } catch {
        throw new NetError('CAP_BAD_ARGS', `the header ${JSON.stringify(name)} is not valid`);
      }
    }
    const secrets = this.#secrets[request.grant];
    const injected: string[] = [];
    for (const name of request.inject) {
      const value = secrets?.get(name.toLowerCase());
      if (value !== undefined) {
        headers.set(name, value);
        injected.push(name);
      }
    }
    let url = first;
    let method = request.method;
    let body = request.body && method !== 'GET' && method !== 'HEAD' ? request.body : null;
    let hops = 0;
    for (;;) {
      let response: Response;
      try {
        response = await fetch(url, {
          method,
          headers,
          body: body as Uint8Array<ArrayBuffer> | null,
          redirect: 'manual',
          credentials: 'omit',
          cache: 'no-store',
          signal,
        });
      } catch (err) {
        if (signal.aborted) {
          throw new NetError('CAP_NET_FAILED', `${url.href}: no answer within ${REQUEST_TIMEOUT_MS / 1000} s, or the sandbox ended`);
        }
        const cause = (err as { cause?: { message?: string } }).cause?.message;
        const reason = `${err instanceof Error ? err.message : String(err)}${cause ? `: ${cause}` : ''}`;
        throw new NetError('CAP_NET_FAILED', `${url.href}: the request failed (${reason})`);
      }
      const location = response.headers.get('location');
      if (request.followWithin !== null && REDIRECTS.has(response.status) && location !== null) {
        await response.body?.cancel().catch(() => {});
        let next: URL;
        try {
          next = new URL(location, url);
        } catch {
          throw new NetError('CAP_NET_REDIRECT', `${url.href} redirected to \`${location}\`, which is not a URL`);
        }
        if (!request.followWithin.some((origin) => originMatches(origin, next))) {
          throw new NetError(
            'CAP_NET_REDIRECT',
            `${request.url} redirected to ${next.href}, outside the origins this request may reach (${request.followWithin.join(', ')}); that hop was not sent`,
          );
        }
        hops += 1;
        if (hops > request.maxRedirects) {
          throw new NetError('CAP_NET_REDIRECT', `${request.url}: more than ${request.maxRedirects} redirects`);
        }
        // Fetch's rules: 307 and 308 keep the method and the body; 301 and 302 turn a
        // POST into a GET, 303 anything but HEAD.
        if ((response.status === 303 && method !== 'GET' && method !== 'HEAD') || ((response.status === 301 || response.status === 302) && method === 'POST')) {
          method = 'GET';
          body = null;
          headers.delete('content-type');
        }
        // The page's secrets go to the grant's own origin only.
        if (next.origin !== first.origin) for (const name of injected) headers.delete(name);
        url = next;
        continue;
      }
      const received = await readCapped(response, request.maxResponseBytes, url.href);
      const scrubber = this.#scrubber;
      const responseHeaders: [string, string][] = [];
      response.headers.forEach((value, name) => {
        responseHeaders.push([scrubber.inName(name) ? REDACTED_HEADER : name, scrubber.text(value)]);
      });
      return {
        status: response.status,
        statusText: scrubber.text(response.statusText),
        headers: responseHeaders,
        url: scrubber.text(url.href),
        redirected: hops > 0,
        body: scrubber.bytes(received),
      };
    }
  }

  /** Ends the requests still running (the sandbox ended). */
  dispose(): void {
    for (const abort of this.#aborts) abort.abort();
    this.#aborts.clear();
  }
}
