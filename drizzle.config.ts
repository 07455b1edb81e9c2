import { defineConfig } from 'drizzle-kit'

// drizzle-kit (generate, migrate, studio). The application applies the same migrations itself at
// start-up (lib/db/client.ts); `npm run db:migrate` does it on demand with the configured driver.
export default defineConfig({
  dialect: 'postgresql',
  // Each dataset's tables live in its folder (lib/datasets/<dataset>/tables.ts); saved views and history in lib/saved-views.
  schema: ['./lib/datasets/*/tables.ts', './lib/saved-views/tables.ts'],
  out: './drizzle',
  ...(process.env.DATABASE_URL
    ? { dbCredentials: { url: process.env.DATABASE_URL } }
    : { driver: 'pglite', dbCredentials: { url: process.env.PGLITE_DIR ?? '.data/pglite' } }),
})
