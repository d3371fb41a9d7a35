// The sweep as a table: the text alternative of the sweep chart, one row per
// (value, policy), with the Pareto points marked by a visible "front" tag
// (not by colour alone). A policy's outcome that does not change over
// consecutive values is one row naming the values (sweep-view.ts).

import { h } from '../ui/dom';
import { formatCount, formatMs, formatPercent, formatRatio } from '../ui/format';
import { policySwatch } from '../ui/palette';
import type { SweepResults } from './sweep-results';
import { sweepRows, valuesText } from './sweep-view';

/** Replaces the table's content with every point of the sweep (the swept key is in the caption and the section's summary). */
export function renderSweepTable(table: HTMLTableElement, results: SweepResults, labels: Map<string, string>): void {
  const headers = ['Value', 'Policy', 'Hit rate', 'p99 TTFT (ms)', 'Mean TTFT (ms)', 'Prefill tokens', 'Imbalance', 'Pareto'];
  const head = h('thead', {}, h('tr', {}, ...headers.map((x, i) => h('th', { scope: 'col', class: i >= 2 && i < 7 ? 'num' : '' }, x))));
  const body = h('tbody');
  const rows = sweepRows(results);
  rows.forEach((row, i) => {
    const r = row.outcome;
    const text = valuesText(row.values, results.points.length);
    // The value heads the rows of its point; later rows repeat it for screen
    // readers only. A row standing for several values always names them, and
    // the row after it names its own.
    const previous = rows[i - 1];
    const heads = row.values.length > 1 || !previous || previous.values.length > 1 || previous.firstPoint !== row.firstPoint;
    body.append(
      h(
        'tr',
        { 'data-value': row.values[0], 'data-values': row.values.join(' '), 'data-policy': r.policy, class: r.pareto ? 'pareto' : '' },
        h('th', { scope: 'row' }, heads ? text : h('span', { class: 'visually-hidden' }, text)),
        h('td', {}, policySwatch(r.policy), labels.get(r.policy) ?? r.policy),
        h('td', { class: 'num' }, formatPercent(r.hit_rate)),
        h('td', { class: 'num' }, formatMs(r.p99_ttft_ms)),
        h('td', { class: 'num' }, formatMs(r.mean_ttft_ms)),
        h('td', { class: 'num' }, formatCount(r.prefill_tokens)),
        h('td', { class: 'num' }, formatRatio(r.imbalance)),
        h('td', {}, r.pareto ? h('span', { class: 'best-tag' }, 'front') : ''),
      ),
    );
  });
  const caption = h('caption', { class: 'visually-hidden' }, `Sweep of ${results.key}: every value and policy`);
  table.replaceChildren(caption, head, body);
}
