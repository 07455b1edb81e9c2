import { redirectToBookingsOp } from '@/lib/bookings/operations'
import { bookingsUrl } from '@/lib/bookings/service'
import { route } from '@/lib/http/route'

export const dynamic = 'force-dynamic'

// GET /api/bookings/{user} - 302 to the user's bookings page (experimental)
export const GET = route(
  redirectToBookingsOp,
  ({ params }) =>
    // Built by hand: Response.redirect() has immutable headers and route() adds the request id.
    new Response(null, { status: 302, headers: { location: bookingsUrl(params.user), 'cache-control': redirectToBookingsOp.cacheControl! } }),
)
