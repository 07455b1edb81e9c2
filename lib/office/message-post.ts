import sanitizeHtml from 'sanitize-html'
import type { GraphMessage } from '@/lib/office/schemas'

// Turns a Message Center message into the title, slug and HTML of a blog post. Message bodies come
// from outside, so the HTML is rebuilt through an allow-list: no script, no event handlers, no
// styles, links only to http(s) and mailto.

const MC_ID = /^MC(\d{1,12})$/i

/** `MC172851` → `mc172851`; null for an id that is not a Message Center number. */
export function slugForMessage(id: string): string | null {
  const m = MC_ID.exec(id.trim())
  return m ? `mc${m[1]}` : null
}

/** `mc123-2` → `{ base: 'mc123', suffix: 2 }` for Ghost's auto-suffixed slugs, else null. */
export function parseSuffixedSlug(slug: string): { base: string; suffix: number } | null {
  const m = /^(mc\d+)-(\d+)$/.exec(slug)
  if (!m) return null
  const suffix = Number(m[2])
  return suffix >= 2 ? { base: m[1], suffix } : null
}

const SANITIZE: sanitizeHtml.IOptions = {
  allowedTags: [
    'p',
    'br',
    'hr',
    'b',
    'strong',
    'i',
    'em',
    'u',
    's',
    'sub',
    'sup',
    'code',
    'pre',
    'blockquote',
    'ul',
    'ol',
    'li',
    'a',
    'h2',
    'h3',
    'h4',
    'h5',
    'h6',
    'table',
    'thead',
    'tbody',
    'tr',
    'th',
    'td',
    'span',
    'div',
  ],
  // rel and target are set by the link transform below (transforms run before the filter).
  allowedAttributes: { a: ['href', 'title', 'rel', 'target'], th: ['colspan', 'rowspan'], td: ['colspan', 'rowspan'] },
  allowedSchemes: ['http', 'https', 'mailto'],
  allowProtocolRelative: false,
  disallowedTagsMode: 'discard',
  // Links leave the blog: no referrer, no window.opener.
  transformTags: {
    a: sanitizeHtml.simpleTransform('a', { rel: 'noopener noreferrer', target: '_blank' }),
    h1: 'h2',
  },
}

export function sanitizeMessageHtml(html: string): string {
  return sanitizeHtml(html, SANITIZE).trim()
}

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!)
}

function textToHtml(text: string): string {
  return text
    .split(/\r?\n\s*\r?\n/)
    .map((para) => para.trim())
    .filter(Boolean)
    .map((para) => `<p>${escapeHtml(para).replace(/\r?\n/g, '<br>')}</p>`)
    .join('')
}

const CATEGORY: Record<string, string> = {
  preventorfixissue: 'Prevent or fix issue',
  planforchange: 'Plan for change',
  stayinformed: 'Stay informed',
}
const SEVERITY: Record<string, string> = { normal: 'Normal', high: 'High', critical: 'Critical' }

const isHttpUrl = (v: string) => {
  try {
    return ['http:', 'https:'].includes(new URL(v).protocol)
  } catch {
    return false
  }
}

const day = (iso: string | null | undefined) => (iso && /^\d{4}-\d{2}-\d{2}/.test(iso) ? iso.slice(0, 10) : null)

export interface MessagePost {
  title: string
  slug: string
  html: string
  excerpt: string
  publishedAt: string | null
}

export function buildMessagePost(message: GraphMessage): MessagePost | null {
  const slug = slugForMessage(message.id)
  if (!slug) return null
  const id = message.id.trim().toUpperCase()
  const raw = message.body?.content ?? ''
  const body = message.body?.contentType === 'text' ? textToHtml(raw) : sanitizeMessageHtml(raw)

  const facts: [string, string][] = []
  if (message.services.length) facts.push(['Services', message.services.join(', ')])
  if (message.category) facts.push(['Category', CATEGORY[message.category] ?? message.category])
  if (message.severity) facts.push(['Severity', SEVERITY[message.severity] ?? message.severity])
  if (message.tags.length) facts.push(['Tags', message.tags.join(', ')])
  if (message.isMajorChange) facts.push(['Major change', 'Yes'])
  const actBy = day(message.actionRequiredByDateTime)
  if (actBy) facts.push(['Action required by', actBy])
  const links = message.details
    .filter((d) => d.value && /link$/i.test(d.name ?? '') && isHttpUrl(d.value))
    .map((d) => `<li><a href="${escapeHtml(d.value!)}" rel="noopener noreferrer" target="_blank">${escapeHtml(d.value!)}</a></li>`)

  const html = [
    `<p><strong>Message ID:</strong> ${escapeHtml(id)}</p>`,
    facts.length ? `<ul>${facts.map(([k, v]) => `<li><strong>${escapeHtml(k)}:</strong> ${escapeHtml(v)}</li>`).join('')}</ul>` : '',
    body,
    links.length ? `<h3>More information</h3><ul>${links.join('')}</ul>` : '',
  ].join('')

  const excerpt = [id, message.services.join(', '), actBy ? `action required by ${actBy}` : ''].filter(Boolean).join(' · ')
  return {
    title: `${id}: ${message.title.trim()}`.slice(0, 255),
    slug,
    html,
    // Ghost caps custom excerpts at 300 characters.
    excerpt: excerpt.slice(0, 300),
    publishedAt: message.startDateTime && !Number.isNaN(Date.parse(message.startDateTime)) ? new Date(message.startDateTime).toISOString() : null,
  }
}
