import { z } from 'zod'
import { config } from '@/lib/config'

export const Support = z
  .object({
    url: z.url().meta({ description: 'Where to get help' }),
    email: z.email().meta({ description: 'Support contact; quote the X-Request-Id of the response' }),
  })
  .meta({ id: 'Support' })
export type Support = z.infer<typeof Support>

export const support = (): Support => ({ url: config.SUPPORT_URL, email: config.SUPPORT_EMAIL })
