// The grid section of docs/guide/routers.md, rendered from the grid document
// scripts/grid.mjs writes (docs/grid.json): every policy's regret over the
// cells (scripts/grid_regret.mjs), smallest worst-case p99 regret first, then
// the recommended policy cell by cell. scripts/generated-docs.sh renders it
// too, so the table always matches the committed grid.
//
//   node scripts/grid_table.mjs docs/grid.json     # prints the section
import fs from 'node:fs';
import { fileURLToPath } from 'node:url';

import { byWorstRegret } from './grid_regret.mjs';

const pct = (x) => `${x >= 0 ? '+' : ''}${(x * 100).toFixed(1)} %`;
const fmt = (x, digits = 1) => x.toFixed(digits);
const pctUnder = (x) => `${x > 0 ? '-' : ''}${(x * 100).toFixed(1)} %`;

/** Why `rec` loses a cell to `other`, read off the two rows: fewer hits, or the same hits piled on fewer replicas. */
function why(rec, other) {
  const hitGap = (other.hit_rate - rec.hit_rate) * 100;
  if (hitGap > 1)
    return `fewer hits than ${other.label} (${fmt(rec.hit_rate * 100)} % vs ${fmt(other.hit_rate * 100)} %)`;
  if (rec.imbalance > other.imbalance * 1.05)
    return `${hitGap > 0 ? 'about as many hits as' : 'no fewer hits than'} ${other.label} (${fmt(rec.hit_rate * 100)} % vs ${fmt(other.hit_rate * 100)} %) but its load piled up: imbalance ${fmt(rec.imbalance, 2)} vs ${fmt(other.imbalance, 2)}`;
  return `queueing at equal hits and balance (${other.label}: ${fmt(other.hit_rate * 100)} % hits, imbalance ${fmt(other.imbalance, 2)})`;
}

/** Markdown: the regret table, a summary line, then the recommended policy's row in each cell. */
export function renderGrid(doc) {
  const ranked = byWorstRegret(doc);
  const recommended = ranked[0];
  const best = (cell, m) => cell.results.reduce((a, b) => (b[m] < a[m] ? b : a));
  const holds = (cell, policy) => {
    const r = cell.results.find((x) => x.policy === policy);
    return r.p99_ttft_ms <= best(cell, 'p99_ttft_ms').p99_ttft_ms * (1 + doc.tolerance) &&
      r.mean_ttft_ms <= best(cell, 'mean_ttft_ms').mean_ttft_ms * (1 + doc.tolerance);
  };
  const capacityOf = (r) => r.capacity_max_load ?? 0;  // null: the SLO is met at no load
  const capacityCell = (c) => c.capacity?.searched && c.results.some((r) => capacityOf(r) > 0);
  const capCells = doc.cells.filter(capacityCell).length;
  const unmet = doc.cells.filter((c) => c.capacity?.searched && !capacityCell(c)).map((c) => `${c.group}: ${c.cell}`);
  let out = `Capacity regret: how far a policy's capacity (the highest load at which p99 TTFT stays within ${doc.capacity_slo['slo.ttft_ms']} ms, ` +
    `\`prefixroute --capacity\`, one SLO for every cell, searched to 5 %) falls under the best policy's, over the ${capCells} cells with one load to search ` +
    '(not the load cells, whose load the search varies, nor a client with stages or a burst, nor a cell where the search reaches its ceiling, ' +
    'the SLO holding at any load of its finite workload, for some policy' +
    (unmet.length ? `; in ${unmet.join(', ')} no policy meets the SLO at any load` : '') + ').\n\n';
  out += '| Policy | Worst-case p99 TTFT regret (cell) | Median p99 regret | Worst-case mean TTFT regret (cell) | Median mean regret | Worst-case capacity regret (cell) | Median capacity regret | Cells held |\n';
  out += '|---|---|---|---|---|---|---|---|\n';
  for (const p of ranked) {
    const held = doc.cells.filter((c) => holds(c, p.policy)).length;
    out += `| ${p.label}${p === recommended ? ' (recommended)' : ''} | ${pct(p.p99_ttft_ms.worst)} (${p.p99_ttft_ms.worst_cell}) | ` +
      `${pct(p.p99_ttft_ms.median)} | ${pct(p.mean_ttft_ms.worst)} (${p.mean_ttft_ms.worst_cell}) | ${pct(p.mean_ttft_ms.median)} | ` +
      `${p.capacity_max_load ? `${pctUnder(p.capacity_max_load.worst)} (${p.capacity_max_load.worst_cell}) | ${pctUnder(p.capacity_max_load.median)}` : '- | -'} | ` +
      `${held} of ${doc.cells.length} |\n`;
  }
  const lost = doc.cells.filter((c) => !holds(c, recommended.policy)).length;
  out += `\n${recommended.label} (\`${recommended.policy}\`) has the smallest worst-case p99 TTFT regret, ${pct(recommended.p99_ttft_ms.worst)}, ` +
    `so the catalogue recommends it. It holds ${doc.cells.length - lost} of ${doc.cells.length} cells ` +
    `(within ${doc.tolerance * 100} % of the best p99 *and* mean TTFT) and loses ${lost}:\n\n`;
  out += '| Cell | Best p99 TTFT | Recommended p99 | Best mean TTFT | Recommended mean | Best capacity | Recommended capacity | Holds? | Why it loses |\n';
  out += '|---|---|---|---|---|---|---|---|---|\n';
  for (const c of doc.cells) {
    const rec = c.results.find((r) => r.policy === recommended.policy);
    const bestP99 = best(c, 'p99_ttft_ms');
    const bestMean = best(c, 'mean_ttft_ms');
    const p99Gap = rec.p99_ttft_ms / bestP99.p99_ttft_ms - 1;
    const meanGap = rec.mean_ttft_ms / bestMean.mean_ttft_ms - 1;
    const ok = holds(c, recommended.policy);
    let capacity = '- | -';
    if (capacityCell(c)) {
      const bestCap = c.results.reduce((a, b) => (capacityOf(b) > capacityOf(a) ? b : a));
      const under = 1 - capacityOf(rec) / capacityOf(bestCap);
      const own = rec.capacity_max_load === null ? 'not met' : fmt(rec.capacity_max_load, 2);
      capacity = `${fmt(bestCap.capacity_max_load, 2)} ${c.capacity.unit} (${bestCap.label}) | ${own} (${pctUnder(under)})`;
    } else if (c.capacity?.searched) {
      capacity = 'not met by any policy | not met';
    }
    out += `| ${c.group}: ${c.cell} | ${bestP99.p99_ttft_ms.toFixed(1)} ms (${bestP99.label}) | ` +
      `${rec.p99_ttft_ms.toFixed(1)} ms (${pct(p99Gap)}) | ${bestMean.mean_ttft_ms.toFixed(1)} ms (${bestMean.label}) | ` +
      `${rec.mean_ttft_ms.toFixed(1)} ms (${pct(meanGap)}) | ${capacity} | ${ok ? 'yes' : '**no**'} | ${ok ? '' : why(rec, p99Gap >= meanGap ? bestP99 : bestMean)} |\n`;
  }
  return out;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const file = process.argv[2];
  if (!file) {
    console.error('usage: node scripts/grid_table.mjs GRID.json');
    process.exit(2);
  }
  process.stdout.write(renderGrid(JSON.parse(fs.readFileSync(file, 'utf8'))));
}
