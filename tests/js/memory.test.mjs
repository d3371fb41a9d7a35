// Repeated use does not grow memory: 200 runs of the module in one instance
// (completed, refused and cancelled ones mixed) leave malloc's in-use bytes
// exactly where the first run left them, and the wasm heap (which only grows)
// at its size after the first few runs. A leak of even one allocation per run
// shows as growth of inUseBytes.
import assert from 'node:assert/strict';
import { before, test } from 'node:test';

import { loadModule } from './helpers.mjs';

const kRuns = 200;
const SMALL = JSON.stringify([['workload.requests', '300'], ['policies', 'all']]);
const REFUSED = JSON.stringify([['cluster.replicas', '0']]);

let pr;
before(async () => {
  pr = await loadModule();
});

test(`${kRuns} runs (completed, refused, cancelled) do not grow the module's memory`, () => {
  const policies = pr.policyCatalogue().length;
  const runOnce = (i) => {
    if (i % 10 === 3) {
      const refused = pr.runScenario('', REFUSED, null);
      assert.equal(refused.ok, false);
    } else if (i % 10 === 7) {
      let calls = 0;
      const cancelled = pr.runScenario('', SMALL, () => ++calls < 2);
      assert.equal(cancelled.ok, false);
      assert.equal(cancelled.cancelled, true);
    } else {
      const run = pr.runScenario('', SMALL, null);
      assert.equal(run.ok, true, JSON.stringify(run.errors));
      assert.equal(run.series.length, policies); // one series per policy ("all")
    }
  };
  for (let i = 0; i < 10; ++i) runOnce(i); // warm-up: the heap settles, static state is built
  const settled = pr.memoryStats();
  const inUse = [];
  for (let i = 0; i < kRuns; ++i) {
    runOnce(i);
    inUse.push(pr.memoryStats().inUseBytes);
  }
  const end = pr.memoryStats();
  console.log(
    `after ${kRuns} runs: wasm heap ${settled.heapBytes} -> ${end.heapBytes} bytes; ` +
      `malloc in use ${settled.inUseBytes} -> ${end.inUseBytes} bytes (max ${Math.max(...inUse)})`,
  );
  assert.equal(end.heapBytes, settled.heapBytes, 'the wasm heap grew');
  assert.equal(end.inUseBytes, settled.inUseBytes, 'bytes in use after the runs differ from before: a leak');
  assert.ok(inUse.every((b) => b === settled.inUseBytes), 'some run left bytes allocated');
});
