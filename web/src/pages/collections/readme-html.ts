import { Marked, type Tokens } from 'marked';
import DOMPurify from 'dompurify';

// Loaded on demand (a separate chunk): only collection pages render Markdown.

const escapeHtml = (s: string): string =>
  s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&#39;');

const marked = new Marked({
  gfm: true,
  async: false,
  renderer: {
    // The README sits under the page's h1 and the section's h2: its headings start at h3.
    heading({ tokens, depth }: Tokens.Heading) {
      const level = Math.min(depth + 2, 6);
      return `<h${level}>${this.parser.parseInline(tokens)}</h${level}>\n`;
    },
    // Images are never fetched (a README would track its readers; the CSP refuses them anyway):
    // each becomes a link to it, which the sanitiser below checks like any other link.
    image({ href, text }: Tokens.Image) {
      return `<a href="${escapeHtml(href)}">image: ${escapeHtml(text || href)}</a>`;
    },
  },
});

const purify = DOMPurify(window);
purify.addHook('afterSanitizeAttributes', (node) => {
  if (node.nodeName !== 'A') return;
  const href = node.getAttribute('href');
  node.setAttribute('rel', 'noopener noreferrer nofollow');
  if (href !== null && new URL(href, location.href).origin !== location.origin) node.setAttribute('target', '_blank');
});

/** Schemes a README link may use: web and mail, or none (a relative link). */
const SAFE_URI = /^(?:https?:|mailto:|[^:/?#]*(?:[/?#]|$))/i;

/**
 * A README's Markdown as HTML that is safe to put in the page: no scripts, no event handlers,
 * no styles or forms, no embedded media, links only to web, mail or relative addresses.
 */
export function readmeHtml(md: string): string {
  const html = marked.parse(md) as string;
  const clean = purify.sanitize(html, {
    FORBID_TAGS: ['img', 'picture', 'source', 'video', 'audio', 'track', 'iframe', 'frame', 'object', 'embed', 'svg', 'math',
      'style', 'link', 'meta', 'base', 'form', 'input', 'button', 'textarea', 'select', 'option', 'dialog', 'template'],
    FORBID_ATTR: ['style', 'class', 'id', 'name', 'srcset', 'action', 'formaction', 'background'],
    ALLOW_DATA_ATTR: false,
    ALLOWED_URI_REGEXP: SAFE_URI,
    RETURN_DOM_FRAGMENT: true,
  });
  // A link whose address was refused (javascript:, data:) is left as its text, not a dead link.
  for (const a of clean.querySelectorAll('a:not([href])')) a.replaceWith(...a.childNodes);
  const box = document.createElement('div');
  box.append(clean);
  return box.innerHTML;
}
