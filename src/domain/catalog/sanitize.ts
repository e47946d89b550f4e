/**
 * Event descriptions are HTML written by organizers and shown on storefronts, so they
 * are sanitized on the way in with sanitize-html (an allow-list): ordinary formatting
 * stays; scripts, styles, event-handler attributes, iframes and any URL scheme other
 * than http, https and mailto are removed. docs/catalog.md lists the allow-list.
 */
import sanitizeHtml from 'sanitize-html';

const OPTIONS: sanitizeHtml.IOptions = {
  allowedTags: [
    'p',
    'br',
    'hr',
    'b',
    'i',
    'em',
    'strong',
    'u',
    's',
    'small',
    'sub',
    'sup',
    'mark',
    'span',
    'a',
    'ul',
    'ol',
    'li',
    'h1',
    'h2',
    'h3',
    'h4',
    'blockquote',
    'pre',
    'code',
    'q',
    'cite',
    'dl',
    'dt',
    'dd',
    'table',
    'thead',
    'tbody',
    'tr',
    'th',
    'td',
  ],
  allowedAttributes: { a: ['href', 'title', 'target', 'rel'] },
  allowedSchemes: ['http', 'https', 'mailto'],
  allowedSchemesAppliedToAttributes: ['href'],
  allowProtocolRelative: false,
  // Content of dropped script-like elements is dropped too, never shown as text.
  nonTextTags: ['script', 'style', 'textarea', 'option', 'noscript', 'iframe', 'object', 'embed', 'template'],
  // Links that open a new window must not hand the storefront to the target.
  transformTags: {
    a: (tagName, attribs) =>
      attribs.target === undefined
        ? { tagName, attribs }
        : { tagName, attribs: { ...attribs, rel: 'noopener noreferrer' } },
  },
};

/** The sanitized HTML, or null when nothing is left (null, empty or only unsafe markup). */
export function sanitizeDescription(html: string | null | undefined): string | null {
  if (html === null || html === undefined) return null;
  const clean = sanitizeHtml(html, OPTIONS).trim();
  return clean === '' ? null : clean;
}
