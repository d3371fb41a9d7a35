// The grid table of docs/guide/routers.md, rendered from the grid document scripts/grid.mjs
// writes (docs/grid.json). scripts/generated-docs.sh renders it too, so the
// table always matches the committed grid.
//
//   node scripts/grid_table.mjs docs/grid.json     # prints the table
import fs from 'node:fs';
import { fileURLToPath } from 'node:url';

const pct = (x) => `${x >= 0 ? '+' : ''}${(x * 100).toFixed(1)} %`;

/** Markdown: a summary line, then one row per cell. */
export function renderGrid(doc) {
  const { cells, holds, loses } = doc.summary;
  let out = `${doc.recommended} holds ${holds} of ${cells} cells (within ${doc.tolerance * 100} % of the best p99 *and* mean TTFT) and loses ${loses}. ` +
    `Cells each policy would hold: ${Object.entries(doc.holds_by_policy).map(([label, n]) => `${label} ${n}`).join(', ')}.\n\n`;
  out += '| Cell | Best p99 TTFT | Recommended p99 | Best mean TTFT | Recommended mean | Holds? | Why it loses |\n';
  out += '|---|---|---|---|---|---|---|\n';
  for (const c of doc.cells) {
    const p99Gap = c.recommended_p99_ttft_ms / c.best_p99.p99_ttft_ms - 1;
    const meanGap = c.recommended_mean_ttft_ms / c.best_mean.mean_ttft_ms - 1;
    out += `| ${c.group}: ${c.cell} | ${c.best_p99.p99_ttft_ms.toFixed(1)} ms (${c.best_p99.label}) | ` +
      `${c.recommended_p99_ttft_ms.toFixed(1)} ms (${pct(p99Gap)}) | ${c.best_mean.mean_ttft_ms.toFixed(1)} ms (${c.best_mean.label}) | ` +
      `${c.recommended_mean_ttft_ms.toFixed(1)} ms (${pct(meanGap)}) | ${c.holds ? 'yes' : '**no**'} | ${c.why} |\n`;
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
