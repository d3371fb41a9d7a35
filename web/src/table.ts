// The results table: one row per policy, the best value of each column
// marked (highlight plus a visible "best" tag, so it does not rely on
// colour), and the change against the baseline policy when it ran.

import { h } from './dom';
import { formatChange, formatCount, formatMs, formatPercent, formatPointChange, formatRatio } from './format';
import pageDefaults from './page-defaults.json';
import { policySwatch } from './palette';
import type { PolicyResult, Results } from './results';

export interface Column {
  id: string;
  header: string;
  unit: string;
  value: (r: PolicyResult) => number;
  format: (v: number) => string;
  better: 'low' | 'high';
  change: (v: number, baseline: number) => string;
  /** Hidden first on narrow screens. */
  optional?: boolean;
}

export const COLUMNS: readonly Column[] = [
  { id: 'mean_ttft_ms', header: 'Mean TTFT', unit: 'ms', value: (r) => r.mean_ttft_ms, format: formatMs, better: 'low', change: formatChange },
  { id: 'p50_ttft_ms', header: 'p50 TTFT', unit: 'ms', value: (r) => r.p50_ttft_ms, format: formatMs, better: 'low', change: formatChange, optional: true },
  { id: 'p90_ttft_ms', header: 'p90 TTFT', unit: 'ms', value: (r) => r.p90_ttft_ms, format: formatMs, better: 'low', change: formatChange, optional: true },
  { id: 'p99_ttft_ms', header: 'p99 TTFT', unit: 'ms', value: (r) => r.p99_ttft_ms, format: formatMs, better: 'low', change: formatChange },
  { id: 'hit_rate', header: 'Hit rate', unit: '', value: (r) => r.hit_rate, format: formatPercent, better: 'high', change: formatPointChange },
  { id: 'prefill_tokens', header: 'Prefill tokens', unit: '', value: (r) => r.prefill_tokens, format: formatCount, better: 'low', change: formatChange },
  { id: 'imbalance', header: 'Imbalance', unit: '', value: (r) => r.imbalance, format: formatRatio, better: 'low', change: formatChange },
];

/** The per-session columns, shown when the workload has sessions (the core reports them only then). */
export const SESSION_COLUMNS: readonly Column[] = [
  { id: 'later_call_hit_rate', header: 'Later-call hit rate', unit: '', value: (r) => r.later_call_hit_rate ?? NaN, format: formatPercent, better: 'high', change: formatPointChange },
  { id: 'one_replica_session_share', header: 'Sessions on one replica', unit: '', value: (r) => r.one_replica_session_share ?? NaN, format: formatPercent, better: 'high', change: formatPointChange },
];

/** The table's columns for these rows: COLUMNS, then SESSION_COLUMNS when the rows carry them. */
export function columnsFor(rows: readonly PolicyResult[]): readonly Column[] {
  return rows.length > 0 && rows[0].later_call_hit_rate !== undefined ? [...COLUMNS, ...SESSION_COLUMNS] : COLUMNS;
}

/**
 * The policy the small figures compare against: the cache-blind baseline,
 * named in page-defaults.json (the page's editorial choices are data, as the
 * presets are).
 */
export const BASELINE_POLICY: string = pageDefaults.baselinePolicy;

/** Row indices holding the best displayed value; empty when every row ties (nothing stands out). */
export function bestRows(results: PolicyResult[], column: Column): Set<number> {
  const shown = results.map((r) => column.format(column.value(r)));
  const values = results.map((r) => column.value(r));
  let best = -1;
  values.forEach((v, i) => {
    if (!Number.isFinite(v)) return;
    if (best < 0 || (column.better === 'low' ? v < values[best] : v > values[best])) best = i;
  });
  const marked = new Set<number>();
  if (best < 0) return marked;
  shown.forEach((s, i) => {
    if (s === shown[best]) marked.add(i);
  });
  return marked.size === results.length && results.length > 1 ? new Set() : marked;
}

/**
 * Replaces the table with the rows of these results; the notes (what the
 * small figures and marks mean, the cache bounds) go below it, outside the
 * sideways-scrolling box, so they stay readable on a phone. `labelOf` names
 * a policy that did not run (the catalogue's label).
 */
export function renderTable(table: HTMLTableElement, notes: HTMLElement, results: Results, labelOf: (policy: string) => string = (p) => p): void {
  const rows = results.results;
  const baseline = rows.find((r) => r.policy === BASELINE_POLICY);
  const columns = columnsFor(rows);

  const headRow = h('tr', {}, h('th', { scope: 'col' }, 'Policy'));
  for (const c of columns) {
    headRow.append(
      h(
        'th',
        { scope: 'col', class: c.optional ? 'num optional' : 'num', 'data-col': c.id },
        c.header,
        c.unit ? h('span', { class: 'unit' }, ` (${c.unit})`) : null,
      ),
    );
  }
  const caption = h('caption', { class: 'visually-hidden' }, 'Results per policy');
  notes.replaceChildren(
    `${formatCount(results.workload.requests)} requests, same trace for every policy. `,
    baseline
      ? `Small figures: change against ${baseline.label}. `
      : `Add ${labelOf(BASELINE_POLICY)} to the policies to see changes against it. `,
    'Best in each column is highlighted and tagged “best”. Imbalance: the busiest replica’s prefill work over the mean (1.00 = even).',
    columns.length > COLUMNS.length
      ? ` Later-call hit rate: over the calls after the first of their session. Sessions on one replica: of the ${formatCount(rows[0].multi_call_sessions ?? 0)} sessions of more than one call, the share served by one replica throughout.`
      : '',
    boundsText(results),
  );

  const best = columns.map((c) => bestRows(rows, c));
  const body = h('tbody');
  rows.forEach((r, i) => {
    const tr = h(
      'tr',
      { 'data-policy': r.policy },
      h('th', { scope: 'row' }, policySwatch(r.policy), r.label,
        h('code', { class: 'policy-id' }, r.policy)),
    );
    columns.forEach((c, ci) => {
      const v = c.value(r);
      const isBest = best[ci].has(i);
      const td = h('td', { class: `num${c.optional ? ' optional' : ''}${isBest ? ' best' : ''}`, 'data-col': c.id, 'data-value': v },
        h('span', { class: 'value' }, c.format(v)));
      if (isBest) td.append(h('span', { class: 'best-tag' }, 'best'));
      if (baseline && r !== baseline) {
        const base = c.value(baseline);
        const change = c.change(v, base);
        const good = c.better === 'low' ? v < base : v > base;
        const tone = change.startsWith('±') ? '' : good ? ' good' : ' bad';
        if (change) td.append(h('span', { class: `change${tone}`, title: `change against ${baseline.label}` }, change));
      }
      tr.append(td);
    });
    body.append(tr);
  });

  table.replaceChildren(caption, h('thead', {}, headRow), body);
}

/** The core's cache bounds in a sentence, when it reports them. */
function boundsText(results: Results): string {
  const { ideal, pooled } = results.bounds ?? {};
  const parts: string[] = [];
  if (ideal) parts.push(`an unbounded cache would reach ${formatPercent(ideal.hit_rate)}`);
  if (pooled) parts.push(`the replicas’ caches pooled into one (${formatCount(pooled.capacity_tokens)} tokens) ${formatPercent(pooled.hit_rate)}`);
  return parts.length ? ` Hit-rate bounds no routing can beat: ${parts.join('; ')}.` : '';
}
