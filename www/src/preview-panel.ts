// The preview: an HTML page of the project shown in the package's contained frame: it
// fetches nothing and navigates nowhere, and its scripts run only when the person turned
// them on for the project (then in an opaque origin: no access to this page, its storage
// or the sandbox). The page's local stylesheets, scripts and images are read from the
// sandbox's files and put into the document itself, so no server or service worker is
// needed. It is rebuilt when the files change while the preview is shown.

import { containedFrame, contentDocument, holdLinks, type Sandbox } from 'sandtab';

const DEFAULT_PAGE = '/home/agent/index.html';
/** Images larger than this stay out of the inlined page. */
const MAX_INLINE_BYTES = 4 << 20;

const MIME: Record<string, string> = {
  png: 'image/png',
  jpg: 'image/jpeg',
  jpeg: 'image/jpeg',
  gif: 'image/gif',
  svg: 'image/svg+xml',
  webp: 'image/webp',
  ico: 'image/x-icon',
};

/** `ref` (as written in the page) resolved against the page's directory, if local. */
function localPath(ref: string | null, dir: string): string | null {
  if (!ref || /^[a-z][a-z0-9+.-]*:/i.test(ref) || ref.startsWith('//') || ref.startsWith('#')) return null;
  const clean = ref.split(/[?#]/)[0]!;
  const parts = (clean.startsWith('/') ? clean : `${dir}/${clean}`).split('/');
  const out: string[] = [];
  for (const part of parts) {
    if (part === '' || part === '.') continue;
    if (part === '..') out.pop();
    else out.push(part);
  }
  return `/${out.join('/')}`;
}

function base64(bytes: Uint8Array): string {
  let text = '';
  for (let i = 0; i < bytes.length; i += 0x8000) text += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(text);
}

/** The page at `path` with its local resources put inline. */
export async function buildPreview(sandbox: Sandbox, path: string): Promise<{ html: string; missing: string[] }> {
  const decode = (bytes: Uint8Array) => new TextDecoder().decode(bytes);
  const dir = path.slice(0, path.lastIndexOf('/')) || '/';
  const doc = new DOMParser().parseFromString(decode(await sandbox.readFile(path)), 'text/html');
  const missing: string[] = [];
  // A local file's bytes; `undefined` for a reference that is not local, `null` for a
  // local file that is missing (its element is dropped: the frame could not load it
  // anyway, and trying only puts a CSP error in the console; `missing` names it).
  const read = async (ref: string | null): Promise<Uint8Array | null | undefined> => {
    const file = localPath(ref, dir);
    if (!file) return undefined;
    try {
      return await sandbox.readFile(file);
    } catch {
      missing.push(file);
      return null;
    }
  };
  for (const link of [...doc.querySelectorAll<HTMLLinkElement>('link[rel~="stylesheet"][href]')]) {
    const bytes = await read(link.getAttribute('href'));
    if (bytes === null) link.remove();
    if (!bytes) continue;
    const style = doc.createElement('style');
    style.textContent = decode(bytes);
    link.replaceWith(style);
  }
  for (const script of [...doc.querySelectorAll<HTMLScriptElement>('script[src]')]) {
    const bytes = await read(script.getAttribute('src'));
    if (bytes === null) script.remove();
    if (!bytes) continue;
    script.removeAttribute('src');
    // `</script` inside the code would end the element early.
    script.textContent = decode(bytes).replace(/<\/script/gi, '<\\/script');
  }
  for (const img of [...doc.querySelectorAll<HTMLImageElement>('img[src]')]) {
    const ref = img.getAttribute('src');
    const bytes = await read(ref);
    if (bytes === null) img.removeAttribute('src');
    if (!bytes || bytes.length > MAX_INLINE_BYTES) continue;
    const ext = (localPath(ref, dir) ?? '').split('.').pop()!.toLowerCase();
    img.setAttribute('src', `data:${MIME[ext] ?? 'application/octet-stream'};base64,${base64(bytes)}`);
  }
  return { html: `<!doctype html>\n${doc.documentElement.outerHTML}`, missing };
}

export class PreviewPanel {
  readonly #host: HTMLElement;
  readonly #path: HTMLInputElement;
  readonly #status: HTMLElement;
  #visible = false;
  #shown = '';

  /** `scripts`: whether the project's pages may run scripts (asked at each draw). */
  constructor(
    readonly root: HTMLElement,
    readonly sandbox: () => Sandbox | null,
    readonly scripts: () => boolean,
  ) {
    this.#host = root.querySelector('.preview-host')!;
    this.#path = root.querySelector('#preview-path')!;
    this.#status = root.querySelector('.preview-status')!;
    this.#path.value = DEFAULT_PAGE;
    root.querySelector('form')!.addEventListener('submit', (event) => {
      event.preventDefault();
      void this.reload(true);
    });
  }

  /** Rebuilds the page; `force` redraws it even if nothing changed. */
  async reload(force = false): Promise<void> {
    const sandbox = this.sandbox();
    if (!sandbox) return;
    const path = this.#path.value.trim() || DEFAULT_PAGE;
    try {
      const { html, missing } = await buildPreview(sandbox, path);
      const scripts = this.scripts();
      const held = !scripts && /<script[\s>]/i.test(html) ? ' (its scripts are off: tick Run scripts to run them)' : '';
      this.#status.textContent = missing.length > 0 ? `Not found: ${missing.join(', ')}` : `Showing ${path}${held}`;
      this.#status.classList.toggle('error', missing.length > 0);
      const key = `${scripts}:${html}`;
      if (force || key !== this.#shown) {
        this.#shown = key;
        this.#draw(html, scripts, path);
      }
    } catch {
      this.#shown = '';
      this.#host.replaceChildren();
      this.#status.textContent = `No page at ${path}: ask the agent to write one, or name another file.`;
      this.#status.classList.add('error');
    }
  }

  #draw(html: string, scripts: boolean, path: string): void {
    const frame = containedFrame(html, { scripts, title: "Preview of the project's page", scriptKeywords: ['allow-modals'] });
    if (!scripts) {
      frame.addEventListener('load', () => {
        const doc = contentDocument(frame);
        if (!doc) return;
        holdLinks(doc, (href) => {
          this.#status.textContent = `Showing ${path}. Links are not followed in the preview (${href.slice(0, 80)}).`;
        });
      });
    }
    this.#host.replaceChildren(frame);
  }

  show(): void {
    this.#visible = true;
    void this.reload();
  }

  hide(): void {
    this.#visible = false;
  }

  filesChanged(): void {
    if (this.#visible && !this.root.hidden) void this.reload();
  }

  projectChanged(): void {
    this.#shown = '';
    this.#host.replaceChildren();
    if (this.#visible && !this.root.hidden) void this.reload();
  }
}
