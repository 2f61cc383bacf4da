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

function attr(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/"/g, '&quot;');
}

const WRAPPER_STYLE = 'html,body{margin:0;height:100%;overflow:hidden}iframe{display:block;border:0;width:100%;height:100%}';

/** The outer iframe (not yet in the document) holding `html` as its contained content. */
export function containedFrame(html: string, options: ContainedFrameOptions): HTMLIFrameElement {
  const sandbox = options.scripts ? ['allow-scripts', ...(options.scriptKeywords ?? [])].join(' ') : 'allow-same-origin';
  const wrapper =
    `<!doctype html><meta charset="utf-8"><meta http-equiv="Content-Security-Policy" content="${FRAME_POLICY}">` +
    `<style>${WRAPPER_STYLE}</style><iframe sandbox="${sandbox}" referrerpolicy="no-referrer" title="${attr(options.title)}" srcdoc="${attr(html)}"></iframe>`;
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

/** Elements whose activation navigates: a person's click on them is not followed. */
const NAVIGATES = 'a[href], area[href]';

/** Keeps a person's clicks on links in a script-free content from navigating (the
 * wrapper would refuse the navigation anyway, leaving an error page); calls `onLink`. */
export function holdLinks(doc: Document, onLink?: (href: string) => void): void {
  const stop = (event: Event) => {
    const target = event.target instanceof doc.defaultView!.Element ? event.target : null;
    const link = target?.closest(NAVIGATES);
    if (!link) return;
    event.preventDefault();
    if (event.type === 'click') onLink?.(link.getAttribute('href') ?? '');
  };
  doc.addEventListener('click', stop, true);
  doc.addEventListener('auxclick', stop, true);
}
