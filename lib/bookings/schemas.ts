import { z } from 'zod'

// A mailbox alias: the local part of an address, dot-separated words of letters, digits, hyphens
// and underscores (so it can never become a path segment such as `..`).
export const USER_ALIAS = /^[A-Za-z0-9_-]+(?:\.[A-Za-z0-9_-]+)*$/

export const BookingsParams = z.object({
  user: z
    .string()
    .max(64, 'must be at most 64 characters')
    .regex(USER_ALIAS, 'must be a mailbox alias: 1–64 letters, digits, dots, hyphens or underscores, not starting or ending with a dot')
    .meta({ description: 'The user alias whose bookings page to open', examples: ['jane.doe'] }),
})

export const LocationHeader = z.url().meta({ description: "The user's bookings page" })
