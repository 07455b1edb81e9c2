import { z } from 'zod'

// Query values are strings, so booleans are parsed as words (z.coerce.boolean would turn "false"
// into true). route() drops empty values first, so `?flag=` counts as absent.
export const queryBoolean = (description?: string) =>
  z.stringbool({ truthy: ['true', '1', 'yes'], falsy: ['false', '0', 'no'] }).meta({ description, override: { type: 'boolean' } })
