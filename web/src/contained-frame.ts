// A frame for HTML the page did not write (the sandbox's `ui`, an agent's preview) that
// can reach nothing. Two nested frames:
//
//   page ─ wrapper (srcdoc; our CSP, with frame-src 'none') ─ content (srcdoc)
//
// The content inherits the wrapper's CSP, so it fetches nothing. Navigation is not a
// fetch the content's own CSP can stop (`location = ...`, a clicked link, a meta
// refresh), but a frame's navigations are checked against its parent's `frame-src`:
// the wrapper's 'none' refuses every one before it is sent (srcdoc documents are not
// fetched, so the content itself still loads). Both frames are sandboxed without
// popups, top navigation or forms.
//
// Scripts are off unless asked for. No CSP covers WebRTC (an ICE server's URL and
// username carry data out over UDP) and a busy script freezes the page, in both
// browsers: only a frame that runs no script is shut. Without scripts both frames share
// the page's origin (`allow-same-origin`, which is safe with scripts off), so the page
// can listen to the person's clicks in the content from its own realm.

/** The policy of the wrapper and, inherited, of the content: nothing fetched, submitted
 * or framed; inline styles, and inline scripts where the frame may run scripts. */
export const FRAME_POLICY =
  "default-src 'none'; frame-src 'none'; child-src 'none'; worker-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; img-src data: blob:; font-src data:; media-src data: blob:; form-action 'none'; base-uri 'none'";

export interface ContainedFrameOptions {
  /** Whether the content's scripts run (and with them WebRTC and busy loops). */
  scripts: boolean;
  /** The frame's accessible name. */
  title: string;
  /** The outer iframe's class. */
  className?: string;
  /** Extra sandbox keywords for the content when scripts run (e.g. `allow-modals`). */
  scriptKeywords?: string[];
}

/** Elements that open connections before any policy is checked (Chromium preconnects
 * for `<link rel=preconnect>` and for frames' sources even when CSP then refuses them,
 * and a name in a URL is a DNS lookup) or that only load other documents. */
const CONNECTING = [
  'iframe',
  'frame',
  'frameset',
  'object',
  'embed',
  'portal',
  'fencedframe',
  'base',
  'meta[http-equiv]:not([http-equiv="Content-Security-Policy" i]):not([http-equiv="content-type" i])',
  'script[type="speculationrules" i]',
].join(', ');
/** `<link rel>` values that fetch or connect by themselves (stylesheets and icons are
 * left to the CSP, which refuses them). */
const CONNECTING_RELS = new Set(['preconnect', 'dns-prefetch', 'prefetch', 'preload', 'modulepreload', 'prerender', 'next', 'pingback', 'manifest']);

const XLINK = 'http://www.w3.org/1999/xlink';
const MATHML = 'http://www.w3.org/1998/Math/MathML';

/** Where a link's target is kept once it no longer is one. */
const HELD_HREF = 'data-sandtab-href';

/** `html` with what would connect before any policy is checked taken out (and, for a
 * frame without scripts, its scripts and event handlers), and DNS prefetching of links
 * turned off. Parsed inertly (`DOMParser` runs and loads nothing).
 * A frame whose scripts run can still add such elements itself (SECURITY.md). */
export function withoutConnectors(html: string, scripts: boolean): string {
  const doc = new DOMParser().parseFromString(html, 'text/html');
  for (const el of [...doc.querySelectorAll(CONNECTING)]) el.remove();
  if (!scripts) {
    // They would not run; taken out, the browser has nothing to refuse (and log).
    for (const el of [...doc.querySelectorAll('script')]) el.remove();
    for (const el of [...doc.querySelectorAll('*')]) {
      for (const name of el.getAttributeNames()) if (name.startsWith('on')) el.removeAttribute(name);
    }
  }
  for (const link of [...doc.querySelectorAll('link[rel]')]) {
    const rels = (link.getAttribute('rel') ?? '').toLowerCase().split(/\s+/);
    if (rels.some((rel) => CONNECTING_RELS.has(rel))) link.remove();
  }
  for (const el of [...doc.querySelectorAll('[ping]')]) el.removeAttribute('ping');
  // Chromium preconnects to a link's host when the pointer rests on it or presses it,
  // before anything checks the navigation: links keep their look, not their target.
  // SVG's `<a>` may use `xlink:href`, and Firefox follows `href` on any MathML element.
  for (const link of [...doc.querySelectorAll('a, area, [href]')]) {
    const isLink = link.localName === 'a' || link.localName === 'area' || link.namespaceURI === MATHML;
    if (!isLink) continue;
    for (const [namespace, name] of [
      [null, 'href'],
      [XLINK, 'href'],
    ] as const) {
      const href = link.getAttributeNS(namespace, name);
      if (href === null || href.startsWith('#')) continue;
      link.setAttribute(HELD_HREF, href);
      link.removeAttributeNS(namespace, name);
    }
  }
  const look = doc.createElement('style');
  look.textContent = `:where(a[${HELD_HREF}]) { color: LinkText; text-decoration: underline; cursor: pointer; }`;
  doc.head.prepend(look);
  const off = doc.createElement('meta');
  off.setAttribute('http-equiv', 'x-dns-prefetch-control');
  off.setAttribute('content', 'off');
  doc.head.prepend(off);
  const doctype = doc.doctype ? `<!doctype ${doc.doctype.name}>` : '';
  return `${doctype}${doc.documentElement.outerHTML}`;
}

function attr(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/"/g, '&quot;');
}

const WRAPPER_STYLE = 'html,body{margin:0;height:100%;overflow:hidden}iframe{display:block;border:0;width:100%;height:100%}';

/** The outer iframe (not yet in the document) holding `html` as its contained content. */
export function containedFrame(html: string, options: ContainedFrameOptions): HTMLIFrameElement {
  const sandbox = options.scripts ? ['allow-scripts', ...(options.scriptKeywords ?? [])].join(' ') : 'allow-same-origin';
  const wrapper =
    `<!doctype html><meta charset="utf-8"><meta http-equiv="x-dns-prefetch-control" content="off">` +
    `<meta http-equiv="Content-Security-Policy" content="${FRAME_POLICY}">` +
    `<style>${WRAPPER_STYLE}</style><iframe sandbox="${sandbox}" referrerpolicy="no-referrer" title="${attr(options.title)}" srcdoc="${attr(withoutConnectors(html, options.scripts))}"></iframe>`;
  const frame = document.createElement('iframe');
  // The wrapper runs no script of its own: its CSP allows inline scripts only for the
  // content it inherits them to, and it holds none.
  frame.setAttribute('sandbox', options.scripts ? sandbox : 'allow-same-origin');
  frame.setAttribute('referrerpolicy', 'no-referrer');
  frame.title = options.title;
  if (options.className) frame.className = options.className;
  frame.srcdoc = wrapper;
  return frame;
}

/** The content's window (a cross-origin proxy when scripts run), once the wrapper loaded. */
export function contentWindow(frame: HTMLIFrameElement): Window | null {
  try {
    return (frame.contentWindow?.frames[0] as Window | undefined) ?? null;
  } catch {
    return null;
  }
}

/** The content's document, readable only when scripts are off (same origin). */
export function contentDocument(frame: HTMLIFrameElement): Document | null {
  try {
    return frame.contentDocument?.querySelector('iframe')?.contentDocument ?? null;
  } catch {
    return null;
  }
}

/** Links, and links whose target `withoutConnectors` held back. */
const NAVIGATES = `a, area, [${HELD_HREF}]`;

/** Keeps a person's clicks on links in a script-free content from doing anything (the
 * wrapper would refuse a navigation anyway, leaving an error page); calls `onLink`. */
export function holdLinks(doc: Document, onLink?: (href: string) => void): void {
  const stop = (event: Event) => {
    const target = event.target instanceof doc.defaultView!.Element ? event.target : null;
    const link = target?.closest(NAVIGATES);
    if (!link || (link.getAttribute('href') ?? '').startsWith('#')) return;
    event.preventDefault();
    if (event.type === 'click') onLink?.(link.getAttribute(HELD_HREF) ?? link.getAttribute('href') ?? '');
  };
  doc.addEventListener('click', stop, true);
  doc.addEventListener('auxclick', stop, true);
}
