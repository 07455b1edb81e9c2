// Runs once when the server starts. Loading the config validates every variable, so a bad value
// stops start-up with a message naming it.
export async function register() {
  if (process.env.NEXT_RUNTIME === 'nodejs') await import('@/lib/startup')
}
