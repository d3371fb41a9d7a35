// The search's curve: the latency at the SLO's percentile against the
// replicas tried, one line per policy (first seed's steps, sorted by
// replicas), with the SLO's bound as a dashed line. An inline SVG (log
// latency axis: a failed step can be tens of times the bound), drawn from
// the capacity JSON's replica_steps only.

import type { CapacityResults } from './capacity-results';

const SVG = 'http://www.w3.org/2000/svg';
const W = 560;
const H = 240;
const PAD = { left: 56, right: 12, top: 12, bottom: 36 };

function el<K extends keyof SVGElementTagNameMap>(tag: K, attrs: Record<string, string | number>, text?: string): SVGElementTagNameMap[K] {
  const node = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, String(v));
  if (text !== undefined) node.textContent = text;
  return node;
}

/** Draws the curve into `box` (an <svg>); returns false when no step has a latency (nothing drawn). */
export function renderCapacityCurve(doc: CapacityResults, box: SVGSVGElement): boolean {
  const metric = doc.scenario.slo.ttft_ms > 0 ? 'ttft_ms' : 'tpot_ms';
  const bound = metric === 'ttft_ms' ? doc.scenario.slo.ttft_ms : doc.scenario.slo.tpot_ms;
  const pct = metric === 'ttft_ms' ? doc.scenario.slo.ttft_percentile : doc.scenario.slo.tpot_percentile;
  const lines = doc.results.map((r) => ({
    policy: r.policy,
    points: (r.per_seed[0]?.replica_steps ?? [])
      .flatMap((s) => (typeof s[metric] === 'number' && (s[metric] as number) > 0 ? [{ x: s.value, y: s[metric] as number }] : []))
      .sort((a, b) => a.x - b.x),
  }));
  const all = lines.flatMap((l) => l.points);
  box.replaceChildren();
  if (all.length === 0) return false;
  const xs = all.map((p) => p.x);
  const ys = [...all.map((p) => p.y), bound];
  const x0 = Math.min(...xs, 1);
  const x1 = Math.max(...xs, x0 + 1);
  const y0 = Math.log10(Math.min(...ys) / 1.5);
  const y1 = Math.log10(Math.max(...ys) * 1.5);
  const sx = (x: number) => PAD.left + ((x - x0) / (x1 - x0)) * (W - PAD.left - PAD.right);
  const sy = (y: number) => PAD.top + (1 - (Math.log10(y) - y0) / (y1 - y0)) * (H - PAD.top - PAD.bottom);
  box.setAttribute('viewBox', `0 0 ${W} ${H}`);
  box.setAttribute('role', 'img');
  box.setAttribute('aria-label', `p${pct} ${metric === 'ttft_ms' ? 'TTFT' : 'TPOT'} against replicas tried by the search, one line per policy, with the SLO bound ${bound} ms dashed.`);
  const axis = { stroke: 'currentColor', 'stroke-opacity': 0.5 };
  box.append(el('line', { x1: PAD.left, y1: H - PAD.bottom, x2: W - PAD.right, y2: H - PAD.bottom, ...axis }));
  box.append(el('line', { x1: PAD.left, y1: PAD.top, x2: PAD.left, y2: H - PAD.bottom, ...axis }));
  // Ticks: every replica count tried (at most ~12 labels), decades of ms.
  const tried = [...new Set(xs)].sort((a, b) => a - b);
  const every = Math.ceil(tried.length / 12);
  tried.forEach((x, i) => {
    if (i % every === 0) box.append(el('text', { x: sx(x), y: H - PAD.bottom + 14, 'text-anchor': 'middle', 'font-size': 11, fill: 'currentColor' }, String(x)));
  });
  box.append(el('text', { x: (PAD.left + W - PAD.right) / 2, y: H - 4, 'text-anchor': 'middle', 'font-size': 11, fill: 'currentColor' }, 'replicas'));
  for (let d = Math.ceil(y0); d <= Math.floor(y1); d++) {
    const v = 10 ** d;
    box.append(el('text', { x: PAD.left - 6, y: sy(v) + 4, 'text-anchor': 'end', 'font-size': 11, fill: 'currentColor' }, v >= 1000 ? `${v / 1000} s` : `${v} ms`));
  }
  box.append(el('line', { class: 'capacity-slo-line', x1: PAD.left, x2: W - PAD.right, y1: sy(bound), y2: sy(bound), stroke: 'currentColor', 'stroke-dasharray': '5 4' }));
  box.append(el('text', { x: W - PAD.right, y: sy(bound) - 4, 'text-anchor': 'end', 'font-size': 11, fill: 'currentColor' }, `SLO ${bound} ms`));
  for (const line of lines) {
    if (line.points.length === 0) continue;
    const colour = `var(--policy-${line.policy}, currentColor)`;
    // var() is CSS, not a presentation attribute's value: the colours go in the style, set through the
    // CSSOM (the page's CSP refuses style attributes).
    const polyline = el('polyline', { points: line.points.map((p) => `${sx(p.x)},${sy(p.y)}`).join(' '), fill: 'none', 'stroke-width': 2, 'data-policy': line.policy });
    polyline.style.stroke = colour;
    box.append(polyline);
    for (const p of line.points) {
      const dot = el('circle', { cx: sx(p.x), cy: sy(p.y), r: 3 });
      dot.style.fill = colour;
      box.append(dot);
    }
  }
  return true;
}
