// The capacity view's bars, as plain HTML (no chart library): per policy a
// bar of GPUs needed at the scenario's load and one of the highest load
// meeting the SLO, each with its 95 % interval as a whisker when the
// scenario has replicates. Every value and interval is the core's.

import { h } from '../ui/dom';
import type { CapacityResults, CapacityRow, Interval } from './capacity-results';

function num(x: number): string {
  return x.toLocaleString('en-US', { maximumFractionDigits: 2 });
}

/** One row: label, bar (width proportional to value / scale), whisker, value text. */
function barRow(row: CapacityRow, value: number | null, interval: Interval | undefined, scale: number, text: string, metric: string): HTMLElement {
  const track = h('div', { class: 'capacity-track' });
  if (value !== null && scale > 0) {
    const bar = h('div', { class: 'capacity-bar' });
    bar.style.width = `${Math.min(100, (value / scale) * 100)}%`;
    bar.style.background = `var(--policy-${row.policy}, var(--accent, #4a7))`;
    track.append(bar);
    if (interval && interval.half_width > 0) {
      const whisker = h('div', { class: 'capacity-whisker', title: `95 % interval ${num(interval.low)}–${num(interval.high)}` });
      whisker.style.left = `${Math.max(0, (interval.low / scale) * 100)}%`;
      whisker.style.width = `${Math.min(100, ((interval.high - interval.low) / scale) * 100)}%`;
      track.append(whisker);
    }
  }
  return h('div', { class: 'capacity-row', 'data-policy': row.policy, 'data-metric': metric, 'data-value': value === null ? '' : String(value) },
    h('span', { class: 'capacity-label' }, row.label), track, h('span', { class: 'capacity-value' }, text));
}

function withInterval(value: number, interval: Interval | undefined): string {
  return interval && interval.half_width > 0 ? `${num(value)} ± ${num(interval.half_width)}` : num(value);
}

/** Renders both bar groups into `gpusBox` and `loadBox`. */
export function renderCapacityBars(doc: CapacityResults, gpusBox: HTMLElement, loadBox: HTMLElement): void {
  const maxGpus = doc.replicas.max * doc.replicas.gpus_per_replica;
  const gpuScale = Math.max(...doc.results.map((r) => r.interval?.gpus?.high ?? r.gpus ?? 0), 1);
  gpusBox.replaceChildren(...doc.results.map((r) =>
    barRow(r, r.gpus, r.interval?.gpus, gpuScale,
      r.gpus === null ? `not met with ${num(maxGpus)}` : `${withInterval(r.gpus, r.interval?.gpus)} GPUs`, 'gpus')));
  const loadScale = Math.max(...doc.results.map((r) => r.interval?.max_load?.high ?? r.max_load ?? 0), doc.load.base);
  const unit = doc.load.unit;
  loadBox.replaceChildren(...doc.results.map((r) =>
    barRow(r, r.max_load, r.interval?.max_load, loadScale,
      r.max_load === null ? 'not met at the lowest load' : `${withInterval(r.max_load, r.interval?.max_load)} ${unit}${r.max_load_limited ? ' (search limit)' : ''}`, 'max_load')));
  // The scenario's load, marked on the load bars (a fresh mark each: a clone's style attribute is refused by the CSP).
  loadBox.dataset.base = String(doc.load.base);
  for (const track of loadBox.querySelectorAll('.capacity-track')) {
    const mark = h('div', { class: 'capacity-base', title: `the scenario's load: ${num(doc.load.base)} ${unit}` });
    mark.style.left = `${(doc.load.base / loadScale) * 100}%`;
    track.append(mark);
  }
}
