import Form from 'next/form'
import { DATASETS } from '@/lib/datasets/catalog'
import { SEARCH_TEXT_MAX } from '@/lib/view/drilldown'
import { formatWallTime, UTC } from '@/lib/view/time'
import { PAGE_SIZES, resolveViewRange, sortParam, viewQuery, type ViewState } from '@/lib/view/view-state'
import { FilterBox } from './filter-box-client'
import { RangeFields } from './range-fields-client'
import styles from './query.module.css'

// A GET form: submitting navigates to the URL of the new state (next/form makes that a client
// navigation). Tab order follows the reading order: search text, range, rows per page, filter, then
// Run. Search text is applied as a filter clause and then shown in the filter, so its box starts empty. The
// form is keyed by the state, so fields show the new state after every navigation.
export function QueryForm({
  action,
  valuesApi,
  state,
  withLimit,
  hidden,
}: {
  action: string
  /** POST /query/api/facets: the filter box completes values from the range's facets. */
  valuesApi: string
  state: ViewState
  withLimit: boolean
  hidden?: Record<string, string>
}) {
  const dataset = DATASETS[state.dataset]
  const resolved = resolveViewRange(state)
  const shown = (typed: string, iso: string) => (state.range === 'custom' ? typed : formatWallTime(Date.parse(iso), state.tz))
  const sizes = PAGE_SIZES.some((n) => n === state.limit) ? PAGE_SIZES : [...PAGE_SIZES, state.limit].sort((a, b) => a - b)
  return (
    <Form key={viewQuery(state)} action={action} className={styles.form} aria-label="Query">
      <input type="hidden" name="dataset" value={state.dataset} />
      {state.tz !== UTC ? <input type="hidden" name="tz" value={state.tz} /> : null}
      {Object.entries(hidden ?? {}).map(([name, value]) => (
        <input key={name} type="hidden" name={name} value={value} />
      ))}
      {state.columns.length ? <input type="hidden" name="cols" value={state.columns.join(',')} /> : null}
      {state.compare ? <input type="hidden" name="compare" value={state.compare} /> : null}
      {state.split ? <input type="hidden" name="split" value={state.split} /> : null}
      {state.live ? <input type="hidden" name="live" value="1" /> : null}
      {state.refresh ? <input type="hidden" name="refresh" value={state.refresh} /> : null}
      {!withLimit && sortParam(state) ? <input type="hidden" name="sort" value={sortParam(state)} /> : null}
      {dataset.columns.some((c) => c.type === 'text') ? (
        <label className={styles.searchField}>
          Search text
          <input
            type="search"
            name="q"
            maxLength={SEARCH_TEXT_MAX}
            placeholder={`in ${dataset.columns.filter((c) => c.type === 'text').length} text columns`}
            aria-describedby="search-hint"
          />
          <span id="search-hint" className={styles.srOnly}>
            Adds a clause to the filter that matches the text in any text column, case-insensitively.
          </span>
        </label>
      ) : null}
      <RangeFields range={state.range} from={shown(state.from, resolved.dateFrom)} to={shown(state.to, resolved.dateTo)} tz={state.tz} />
      {withLimit ? (
        <label>
          Rows per page
          <select name="limit" defaultValue={String(state.limit)}>
            {sizes.map((n) => (
              <option key={n} value={n}>
                {n}
              </option>
            ))}
          </select>
        </label>
      ) : null}
      {withLimit ? (
        <label className={styles.sortField}>
          Sort by
          <select name="sort" defaultValue={sortParam(state) || `-${dataset.timeColumn}`}>
            {dataset.sortColumns
              .flatMap((c) =>
                c === dataset.timeColumn
                  ? [
                      [`-${c}`, `${c}, newest first`],
                      [c, `${c}, oldest first`],
                    ]
                  : [
                      [c, `${c}, ascending`],
                      [`-${c}`, `${c}, descending`],
                    ],
              )
              .map(([value, label]) => (
                <option key={value} value={value}>
                  {label}
                </option>
              ))}
          </select>
        </label>
      ) : null}
      <FilterBox
        defaultValue={state.filter}
        placeholder={`e.g. ${dataset.quickFilters[0]?.filter ?? ''}`}
        columns={dataset.columns.map((c) => ({ name: c.name, type: c.type }))}
        valuesSource={{ api: valuesApi, body: { dataset: state.dataset, ...resolved } }}
      />
      <div className={styles.runRow}>
        <button type="submit">Run</button>
      </div>
    </Form>
  )
}
