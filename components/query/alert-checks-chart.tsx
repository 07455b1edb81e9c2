import { formatValue, type Condition } from '@/lib/saved-views/condition'
import type { Evaluation } from '@/lib/saved-views/views'
import { formatTime } from '@/lib/view/time'
import styles from './query.module.css'

// The recent checks of one alert as a small chart (server-rendered SVG, no script): the value each
// check observed, the threshold as a dashed line, and a marker where the alert fired (▲) or
// resolved (●). The table beside it holds the same figures for screen readers; the chart's label
// says what it shows and counts the markers.

const W = 600
const H = 120
const PAD = { left: 8, right: 8, top: 10, bottom: 18 }

export function AlertChecksChart({ name, condition, evaluations, tz }: { name: string; condition: Condition; evaluations: Evaluation[]; tz: string }) {
  const checks = evaluations
    .filter((e) => e.value !== null)
    .slice()
    .reverse()
  if (checks.length < 2) return null
  const times = checks.map((e) => Date.parse(e.at))
  const t0 = times[0]
  const t1 = times.at(-1)!
  const values = checks.map((e) => e.value!)
  const top = Math.max(condition.threshold, ...values) * 1.1 || 1
  const x = (t: number) => PAD.left + ((t - t0) / (t1 - t0 || 1)) * (W - PAD.left - PAD.right)
  const y = (v: number) => H - PAD.bottom - (v / top) * (H - PAD.top - PAD.bottom)
  const points = checks.map((e, i) => `${x(times[i]).toFixed(1)},${y(e.value!).toFixed(1)}`).join(' ')
  // A firing starts where a check is firing after one that was not; a resolution is its own state.
  const fired = checks.filter((e, i) => e.state === 'firing' && (i === 0 || checks[i - 1].state !== 'firing'))
  const resolved = checks.filter((e) => e.state === 'resolved')
  const label = `Values of the last ${checks.length} checks of ${name} against the threshold ${formatValue(condition.metric, condition.threshold)}, from ${formatTime(checks[0].at, tz)} to ${formatTime(checks.at(-1)!.at, tz)}: ${fired.length} firing, ${resolved.length} resolved.`
  return (
    <figure className={styles.checksChart}>
      <svg viewBox={`0 0 ${W} ${H}`} role="img" aria-label={label} data-testid="checks-chart" preserveAspectRatio="none">
        <line className={styles.checksThreshold} x1={PAD.left} x2={W - PAD.right} y1={y(condition.threshold)} y2={y(condition.threshold)} />
        <polyline className={styles.checksLine} points={points} />
        {fired.map((e) => {
          const cx = x(Date.parse(e.at))
          const cy = y(e.value!)
          return (
            <polygon key={e.id} className={styles.checksFired} points={`${cx},${cy - 7} ${cx - 6},${cy + 5} ${cx + 6},${cy + 5}`} data-testid="marker-fired" />
          )
        })}
        {resolved.map((e) => (
          <circle key={e.id} className={styles.checksResolved} cx={x(Date.parse(e.at))} cy={y(e.value!)} r={5} data-testid="marker-resolved" />
        ))}
      </svg>
      <figcaption className={styles.hint}>
        Value per check; dashed: the threshold; ▲ fired, ● resolved. {formatTime(checks[0].at, tz)} → {formatTime(checks.at(-1)!.at, tz)}
      </figcaption>
    </figure>
  )
}
