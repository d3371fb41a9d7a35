// The catalogue's recommended mark follows the committed grid: the module marks
// the policy with the smallest worst-case p99 TTFT regret over docs/grid.json
// (scripts/grid_regret.mjs), and carries that regret.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, test } from 'node:test';

import { recommendation, regrets } from '../../scripts/grid_regret.mjs';
import { loadModule, ROOT } from './helpers.mjs';

const grid = JSON.parse(fs.readFileSync(path.join(ROOT, 'docs/grid.json'), 'utf8'));

describe('the recommended policy', () => {
  test('is the policy with the smallest worst-case p99 TTFT regret over the committed grid', async () => {
    const pr = await loadModule();
    const marked = pr.policyCatalogue().filter((p) => p.recommended);
    const data = recommendation(grid);
    assert.equal(marked.length, 1);
    assert.equal(marked[0].name, data.policy,
      `the catalogue recommends ${marked[0].name}, the grid ${data.policy} (worst-case p99 regret ${data.p99_ttft_ms.worst}): run npm run docs, then rebuild`);
    assert.ok(Math.abs(marked[0].worst_p99_regret - data.p99_ttft_ms.worst) < 5e-5,
      `the catalogue carries ${marked[0].worst_p99_regret}, the grid says ${data.p99_ttft_ms.worst}`);
  });

  test('every policy of the catalogue is in every cell, and no policy has a smaller worst-case regret', () => {
    const all = regrets(grid);
    const best = recommendation(grid);
    for (const p of all) assert.ok(p.p99_ttft_ms.worst >= best.p99_ttft_ms.worst, `${p.policy} beats ${best.policy}`);
    assert.equal(all.length, grid.cells[0].results.length);
  });
});

describe('regret', () => {
  const cell = (name, rows) => ({ group: 'g', cell: name, results: rows.map(([policy, p99, mean]) => ({ policy, label: policy, p99_ttft_ms: p99, mean_ttft_ms: mean })) });
  const doc = { schema: 'prefixroute.grid/3', cells: [
    cell('a', [['x', 100, 10], ['y', 150, 10], ['z', 100, 30]]),
    cell('b', [['x', 300, 20], ['y', 200, 20], ['z', 200, 20]]),
    cell('c', [['x', 100, 10], ['y', 110, 11], ['z', 100, 10]]),
  ] };

  test('is each policy over the cell’s best, minus one; worst case and median over the cells', () => {
    const r = Object.fromEntries(regrets(doc).map((p) => [p.policy, p]));
    assert.deepEqual(r.x.p99_ttft_ms, { worst: 0.5, worst_cell: 'g: b', median: 0, cells: 3 });
    assert.deepEqual(r.y.p99_ttft_ms, { worst: 0.5, worst_cell: 'g: a', median: 0.10000000000000009, cells: 3 });
    assert.deepEqual(r.z.p99_ttft_ms, { worst: 0, worst_cell: 'g: a', median: 0, cells: 3 });
    assert.deepEqual(r.z.mean_ttft_ms, { worst: 2, worst_cell: 'g: a', median: 0, cells: 3 });
    assert.equal(r.x.capacity_max_load, undefined, 'no cell searched capacity: no capacity regret');
  });

  test('capacity regret is how far a policy’s capacity falls under the best’s, over the cells that searched it', () => {
    const withCapacity = (c, searched, loads) => ({ ...c, capacity: { searched },
      results: c.results.map((r, i) => ({ ...r, capacity_max_load: searched ? loads[i] : null })) });
    const capDoc = { ...doc, cells: [
      withCapacity(doc.cells[0], true, [100, 50, 80]),
      withCapacity(doc.cells[1], true, [40, 40, 40]),
      withCapacity(doc.cells[2], false, []),
    ] };
    const r = Object.fromEntries(regrets(capDoc).map((p) => [p.policy, p]));
    assert.deepEqual(r.x.capacity_max_load, { worst: 0, worst_cell: 'g: a', median: 0, cells: 2 });
    assert.deepEqual(r.y.capacity_max_load, { worst: 0.5, worst_cell: 'g: a', median: 0.25, cells: 2 });
    assert.ok(Math.abs(r.z.capacity_max_load.worst - 0.2) < 1e-12);
    // Meeting the SLO at no load (null) is capacity 0; a cell where no policy meets it is left out.
    const unmet = { ...capDoc, cells: [
      withCapacity(doc.cells[0], true, [100, null, 80]),
      withCapacity(doc.cells[1], true, [null, null, null]),
    ] };
    const u = Object.fromEntries(regrets(unmet).map((p) => [p.policy, p]));
    assert.deepEqual(u.y.capacity_max_load, { worst: 1, worst_cell: 'g: a', median: 1, cells: 1 });
  });

  test('recommends the smallest worst-case p99 regret, ties to the smaller worst-case mean regret', () => {
    assert.equal(recommendation(doc).policy, 'z');
    // Without z, x and y are both +50 % at worst on p99; y's mean is 10 % worse in cell c.
    const tie = { ...doc, cells: doc.cells.map((c) => ({ ...c, results: c.results.filter((r) => r.policy !== 'z') })) };
    assert.equal(recommendation(tie).policy, 'x');
    // Fully tied: the name decides, so the mark never depends on the catalogue's order.
    const same = { ...doc, cells: [cell('a', [['y', 100, 10], ['x', 100, 10]])] };
    assert.equal(recommendation(same).policy, 'x');
  });

  test('names a grid it cannot read, and a cell with other policies', () => {
    assert.throws(() => regrets({ schema: 'prefixroute.grid/2', cells: [] }), /prefixroute\.grid\/3/);
    const odd = { ...doc, cells: [doc.cells[0], cell('d', [['x', 1, 1]])] };
    assert.throws(() => regrets(odd), /cell "g: d" runs other policies/);
  });
});
