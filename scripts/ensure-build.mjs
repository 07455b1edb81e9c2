// `npm start` on a fresh clone: build once if there is no production build yet.
import { existsSync } from 'node:fs'
import { spawnSync } from 'node:child_process'

if (!existsSync(new URL('../.next/BUILD_ID', import.meta.url))) {
  console.log('No production build found: running `next build` first (once).')
  const r = spawnSync(process.execPath, ['node_modules/next/dist/bin/next', 'build'], {
    stdio: 'inherit',
    env: { ...process.env, NEXT_TELEMETRY_DISABLED: '1' },
  })
  process.exit(r.status ?? 1)
}
