import { config } from 'zod'

// Zod (in Scalar's bundle) probes whether it may compile validators with `Function("")`. The
// Content Security Policy forbids eval, so the probe fails, as it should, but Chromium reports each
// try as a policy violation. Jitless mode skips the probe and validates the same way without it.
// Imported before Scalar, so it is set before any schema is used.
config({ jitless: true })
