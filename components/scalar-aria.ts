// Repairs ARIA that Scalar 0.8 renders wrongly (axe: aria-allowed-attr, button-name,
// aria-required-children; scalar/scalar#9725). Scalar fixed them in 0.9, which needs Node 22, so
// until this project moves to Node 22 the rendered markup is corrected in place, the way the
// upstream fix changes it. Every change is an attribute; Vue re-renders are repaired again.

const repairs: [selector: string, repair: (el: Element) => void][] = [
  // Sidebar entries are buttons marked aria-selected, which a button does not support.
  [
    'button[aria-selected]:not([role])',
    (el) => {
      if (el.getAttribute('aria-selected') === 'true') el.setAttribute('aria-current', 'page')
      else el.removeAttribute('aria-current')
      el.removeAttribute('aria-selected')
    },
  ],
  // The search trigger carries the landmark role "search", which hides its name ("Open Search").
  ['button[role="search"]', (el) => el.removeAttribute('role')],
  // Icon-only copy buttons have no name.
  ['button[class*="copy-button"]:not([aria-label])', (el) => el.setAttribute('aria-label', 'Copy to clipboard')],
  // The client tabs' "More" menu button sits inside the tablist, where only tabs may be.
  ['[role="tablist"] button:not([role])', (el) => el.setAttribute('role', 'tab')],
]

const ATTRIBUTES = ['aria-selected', 'role', 'aria-label', 'class']

export function repairScalarAria(root: Element): () => void {
  const repair = () => {
    for (const [selector, fix] of repairs) root.querySelectorAll(selector).forEach(fix)
  }
  let queued = false
  const observer = new MutationObserver(() => {
    if (queued) return
    queued = true
    queueMicrotask(() => {
      queued = false
      repair()
    })
  })
  repair()
  observer.observe(root, { subtree: true, childList: true, attributes: true, attributeFilter: ATTRIBUTES })
  return () => observer.disconnect()
}
