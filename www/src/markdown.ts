// The agent's answers as formatted text: Markdown (marked) made safe (DOMPurify) with a
// short list of what may appear. No images, frames, forms or styles: a model's answer
// must not make the page load anything (an image URL could carry the project's data
// away) or look like the page's own controls. Links open in a new tab, http(s) only.

import { marked } from 'marked';
import DOMPurify from 'dompurify';

const ALLOWED_TAGS = [
  'p', 'br', 'strong', 'em', 'del', 'code', 'pre', 'blockquote', 'ul', 'ol', 'li', 'a', 'hr',
  'h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'table', 'thead', 'tbody', 'tr', 'th', 'td', 'span',
];

const purify = DOMPurify(window);
purify.addHook('afterSanitizeAttributes', (node) => {
  if (node.tagName !== 'A') return;
  const href = node.getAttribute('href') ?? '';
  if (!/^https?:\/\//i.test(href)) {
    node.removeAttribute('href');
    return;
  }
  node.setAttribute('target', '_blank');
  node.setAttribute('rel', 'noopener noreferrer');
});

/** `text` (Markdown) as sanitised HTML. */
export function markdownToHtml(text: string): string {
  const html = marked.parse(text, { async: false, gfm: true, breaks: true });
  return purify.sanitize(html, { ALLOWED_TAGS, ALLOWED_ATTR: ['href', 'title'] });
}
