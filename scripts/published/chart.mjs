// Plain SVG charts for the generated published-results page: one metric
// against the offered load, a published and a simulated line per policy, or
// grouped bars for a run without a ladder. No library, no randomness, fixed
// number formatting: the same data always gives the same bytes.

const W = 640;
const H = 320;
const M = { left: 64, right: 150, top: 28, bottom: 44 };
const COLOURS = ['#1f77b4', '#d62728', '#2ca02c', '#9467bd', '#ff7f0e', '#8c564b'];

const esc = (s) => String(s).replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
const num = (v) => (Math.round(v * 10) / 10).toFixed(1);

function tickLabel(v) {
  if (v === 0) return '0';
  const a = Math.abs(v);
  if (a >= 1e6) return `${+(v / 1e6).toFixed(1)}M`;
  if (a >= 1e3) return `${+(v / 1e3).toFixed(1)}k`;
  if (a >= 1) return `${+v.toFixed(2)}`;
  return `${+v.toPrecision(2)}`;
}

function linearTicks(lo, hi, count) {
  const span = hi - lo || 1;
  const raw = span / count;
  const mag = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 5, 10].map((k) => k * mag).find((s) => s >= raw);
  // From the first multiple of the step at or above lo to the first at or above hi.
  const ticks = [];
  const first = Math.ceil(lo / step - 1e-9);
  for (let k = first; ; ++k) {
    const v = +(k * step).toPrecision(12);
    ticks.push(v);
    if (v >= hi - step * 1e-9) break;
  }
  return ticks;
}

/**
 * A line chart. `series`: [{ name, colourIndex, dashed, points: [[x, y], ...] }].
 * The y axis is logarithmic when the positive values span more than 50x.
 */
/** The start of a chart's SVG: its title, background, heading and the y grid with labels. */
function frame(title, M, pw, yTicks, sy) {
  const out = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${H}" viewBox="0 0 ${W} ${H}" font-family="sans-serif" font-size="11">`,
    `<title>${esc(title)}</title>`,
    `<rect width="${W}" height="${H}" fill="#ffffff"/>`,
    `<text x="${M.left}" y="16" font-size="13" font-weight="bold">${esc(title)}</text>`,
  ];
  for (const t of yTicks) {
    const y = num(sy(t));
    out.push(`<line x1="${M.left}" y1="${y}" x2="${M.left + pw}" y2="${y}" stroke="#e0e0e0"/>`);
    out.push(`<text x="${M.left - 6}" y="${y}" text-anchor="end" dominant-baseline="middle">${esc(tickLabel(t))}</text>`);
  }
  return out;
}

export function lineChart({ title, xLabel, yLabel, series }) {
  const pts = series.flatMap((s) => s.points).filter((p) => Number.isFinite(p[1]));
  const xs = pts.map((p) => p[0]);
  const ys = pts.map((p) => p[1]).filter((y) => y > 0);
  const xMin = Math.min(0, ...xs);
  const xTicks = linearTicks(xMin, Math.max(...xs, 1), 6);
  const xMax = xTicks[xTicks.length - 1];
  const yMaxRaw = Math.max(...ys, 1e-9);
  const yMinRaw = Math.min(...ys, yMaxRaw);
  const log = yMaxRaw / yMinRaw > 50;
  const pw = W - M.left - M.right;
  const ph = H - M.top - M.bottom;
  let yLo;
  let yHi;
  let yTicks;
  if (log) {
    yLo = 10 ** Math.floor(Math.log10(yMinRaw));
    yHi = 10 ** Math.ceil(Math.log10(yMaxRaw));
    yTicks = [];
    for (let e = Math.log10(yLo); e <= Math.log10(yHi) + 1e-9; ++e) yTicks.push(10 ** e);
  } else {
    yLo = 0;
    yTicks = linearTicks(0, yMaxRaw * 1.05, 5);
    yHi = yTicks[yTicks.length - 1];
  }
  const sx = (x) => M.left + ((x - xMin) / (xMax - xMin || 1)) * pw;
  const sy = (y) => {
    if (log) {
      const v = Math.max(y, yLo);
      return M.top + ph - ((Math.log10(v) - Math.log10(yLo)) / (Math.log10(yHi) - Math.log10(yLo))) * ph;
    }
    return M.top + ph - ((y - yLo) / (yHi - yLo || 1)) * ph;
  };
  const out = frame(title, M, pw, yTicks, sy);
  for (const t of xTicks) {
    const x = num(sx(t));
    out.push(`<line x1="${x}" y1="${M.top + ph}" x2="${x}" y2="${M.top + ph + 4}" stroke="#333"/>`);
    out.push(`<text x="${x}" y="${M.top + ph + 16}" text-anchor="middle">${esc(tickLabel(t))}</text>`);
  }
  out.push(`<line x1="${M.left}" y1="${M.top + ph}" x2="${M.left + pw}" y2="${M.top + ph}" stroke="#333"/>`);
  out.push(`<line x1="${M.left}" y1="${M.top}" x2="${M.left}" y2="${M.top + ph}" stroke="#333"/>`);
  out.push(`<text x="${M.left + pw / 2}" y="${H - 8}" text-anchor="middle">${esc(xLabel)}</text>`);
  out.push(
    `<text x="14" y="${M.top + ph / 2}" text-anchor="middle" transform="rotate(-90 14 ${M.top + ph / 2})">${esc(yLabel)}${log ? ' (log)' : ''}</text>`,
  );
  series.forEach((s, i) => {
    const colour = COLOURS[s.colourIndex % COLOURS.length];
    const p = s.points.filter((q) => Number.isFinite(q[1]));
    if (p.length > 1) {
      const d = p.map((q, k) => `${k === 0 ? 'M' : 'L'}${num(sx(q[0]))},${num(sy(q[1]))}`).join(' ');
      out.push(`<path d="${d}" fill="none" stroke="${colour}" stroke-width="2"${s.dashed ? ' stroke-dasharray="6 4"' : ''}/>`);
    }
    for (const q of p) {
      const cx = num(sx(q[0]));
      const cy = num(sy(q[1]));
      out.push(
        s.dashed
          ? `<rect x="${num(sx(q[0]) - 3.5)}" y="${num(sy(q[1]) - 3.5)}" width="7" height="7" fill="#ffffff" stroke="${colour}" stroke-width="1.5"/>`
          : `<circle cx="${cx}" cy="${cy}" r="2.5" fill="${colour}"/>`,
      );
    }
    const ly = M.top + 8 + i * 16;
    const lx = M.left + pw + 10;
    out.push(
      `<line x1="${lx}" y1="${ly}" x2="${lx + 22}" y2="${ly}" stroke="${colour}" stroke-width="2"${s.dashed ? ' stroke-dasharray="6 4"' : ''}/>`,
    );
    out.push(`<text x="${lx + 28}" y="${ly}" dominant-baseline="middle">${esc(s.name)}</text>`);
  });
  out.push('</svg>');
  return `${out.join('\n')}\n`;
}

/** Grouped bars: `groups` [{ label, bars: [{ name, value, colourIndex, dashed }] }]. */
export function barChart({ title, yLabel, groups }) {
  const pw = W - M.left - M.right;
  const ph = H - M.top - M.bottom;
  const values = groups.flatMap((g) => g.bars.map((b) => b.value)).filter(Number.isFinite);
  const yTicks = linearTicks(0, Math.max(...values, 1e-9) * 1.05, 5);
  const yHi = yTicks[yTicks.length - 1];
  const sy = (y) => M.top + ph - (y / yHi) * ph;
  const out = frame(title, M, pw, yTicks, sy);
  const gw = pw / groups.length;
  const legend = new Map();
  groups.forEach((g, gi) => {
    const bw = (gw * 0.7) / g.bars.length;
    g.bars.forEach((b, bi) => {
      const colour = COLOURS[b.colourIndex % COLOURS.length];
      const x = M.left + gi * gw + gw * 0.15 + bi * bw;
      const y = sy(b.value);
      out.push(
        `<rect x="${num(x)}" y="${num(y)}" width="${num(bw - 2)}" height="${num(M.top + ph - y)}" fill="${b.dashed ? '#ffffff' : colour}" stroke="${colour}" stroke-width="1.5"${b.dashed ? ' stroke-dasharray="4 3"' : ''}/>`,
      );
      legend.set(b.name, b);
    });
    out.push(`<text x="${num(M.left + gi * gw + gw / 2)}" y="${M.top + ph + 16}" text-anchor="middle">${esc(g.label)}</text>`);
  });
  out.push(`<line x1="${M.left}" y1="${M.top + ph}" x2="${M.left + pw}" y2="${M.top + ph}" stroke="#333"/>`);
  out.push(
    `<text x="14" y="${M.top + ph / 2}" text-anchor="middle" transform="rotate(-90 14 ${M.top + ph / 2})">${esc(yLabel)}</text>`,
  );
  [...legend.values()].forEach((b, i) => {
    const colour = COLOURS[b.colourIndex % COLOURS.length];
    const ly = M.top + 8 + i * 16;
    const lx = M.left + pw + 10;
    out.push(
      `<rect x="${lx}" y="${ly - 5}" width="18" height="10" fill="${b.dashed ? '#ffffff' : colour}" stroke="${colour}"${b.dashed ? ' stroke-dasharray="4 3"' : ''}/>`,
    );
    out.push(`<text x="${lx + 24}" y="${ly}" dominant-baseline="middle">${esc(b.name)}</text>`);
  });
  out.push('</svg>');
  return `${out.join('\n')}\n`;
}
