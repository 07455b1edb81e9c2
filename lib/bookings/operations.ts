import { defineOperation } from '@/lib/http/operation'
import { BookingsParams, LocationHeader } from '@/lib/bookings/schemas'

export const redirectToBookingsOp = defineOperation({
  method: 'GET',
  path: '/bookings/{user}',
  operationId: 'redirectToBookings',
  tag: 'Bookings',
  summary: "Redirect to a user's Microsoft Bookings page",
  description: "Answers 302 with `Location` set to the user's bookings page. When the service has a list of users with bookings pages, other users get 404.",
  params: BookingsParams,
  success: { status: 302, description: "Redirect to the user's bookings page", headers: { Location: LocationHeader } },
  examples: [
    { name: 'user', summary: 'A user with a bookings page', params: { user: 'adele.vance' } },
    { name: 'unknownUser', summary: 'A user without one', params: { user: 'megan.bowen' } },
  ],
  errors: ['not_found', 'not_configured'],
  experimental: true,
  cacheControl: 'public, max-age=300',
})

export const bookingsOperations = [redirectToBookingsOp]
