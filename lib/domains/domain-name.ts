import { isIP } from 'node:net'
import { toASCII } from 'tr46'

// Host-name rules for the domains we look up: RFC 1035/1123 letters-digits-hyphen labels, IDNA
// (a Unicode name is converted to its punycode A-label form, and an `xn--` label must decode),
// at least two labels, 63 octets per label and 253 in all.

const LABEL = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/

// UTS #46 (non-transitional, with every validity check) from the tr46 package, not node:url's
// domainToASCII: the runtime's answer for the same name differs between Node lines (xn--abc is
// rejected on 20, accepted on 24 and 26). Lengths are checked below, with their own messages.
const IDNA = { checkHyphens: true, checkBidi: true, checkJoiners: true, useSTD3ASCIIRules: true, transitionalProcessing: false } as const
const idnaToAscii = (name: string, verifyDNSLength = false) => toASCII(name, { ...IDNA, verifyDNSLength })

/** The ASCII (punycode) form of `input`, or a sentence saying what is wrong with it. */
export function normaliseDomain(input: string): { ok: true; domain: string } | { ok: false; problem: string } {
  const raw = input.trim().replace(/\.$/, '')
  if (!raw) return { ok: false, problem: 'a domain name is required' }
  if (isIP(raw) || isIP(raw.replace(/^\[|\]$/g, ''))) return { ok: false, problem: `"${input}" is an IP address, not a domain name` }
  if (/[/:@?#\s]/.test(raw)) return { ok: false, problem: `"${input}" is not a bare domain name (no scheme, path, port, spaces or e-mail address)` }
  if (raw.includes('..') || raw.startsWith('.')) return { ok: false, problem: `"${input}" has an empty label` }
  const ascii = /^[\x00-\x7f]*$/.test(raw) ? raw.toLowerCase() : idnaToAscii(raw)
  if (!ascii) return { ok: false, problem: `"${input}" is not a valid internationalised domain name` }
  if (ascii.length > 253) return { ok: false, problem: `"${input}" is longer than 253 characters` }
  const labels = ascii.split('.')
  if (labels.length < 2) return { ok: false, problem: `"${input}" needs at least two labels (e.g. example.com)` }
  for (const label of labels) {
    if (label.length > 63) return { ok: false, problem: `label "${label}" is longer than 63 characters` }
    if (!LABEL.test(label)) {
      return {
        ok: false,
        problem: `label "${label}" may contain only letters, digits and hyphens, and may not start or end with a hyphen`,
      }
    }
    if (label.slice(2, 4) === '--') {
      // Hyphens in positions 3-4 are reserved for IDNA; only a decodable xn-- label is allowed.
      if (!label.startsWith('xn--') || idnaToAscii(label) !== label) return { ok: false, problem: `label "${label}" is not a valid IDNA label` }
    }
  }
  if (/^[0-9]+$/.test(labels.at(-1)!)) return { ok: false, problem: `"${input}" has an all-numeric top-level label` }
  // The whole name once more, as DNS will see it: catches what no single rule above covers (e.g. bidi rules across labels).
  if (idnaToAscii(ascii, true) !== ascii) return { ok: false, problem: `"${input}" is not a valid internationalised domain name` }
  return { ok: true, domain: ascii }
}
