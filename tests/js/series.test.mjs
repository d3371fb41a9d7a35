// The per-request series: one entry per request per policy, consistent with
// the results JSON, and real copies that outlive any later growth of the heap.
import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';

import { loadModule } from './helpers.mjs';

let pr;
let run;
let doc;
before(async () => {
  pr = await loadModule();
  run = pr.runScenario('', '', null);
  doc = JSON.parse(run.resultsJson);
});

function checksum(series) {
  let h = 0;
  for (const a of [series.ttftMs, series.replicaOf, series.cachedTokens])
    for (let i = 0; i < a.length; i++) h = (h * 31 + a[i] * (i + 1)) % 1e15;
  return h;
}

describe('series', () => {
  test('one series per policy, in the results order', () => {
    assert.equal(run.ok, true);
    assert.deepEqual(run.series.map((s) => s.policy), doc.results.map((r) => r.policy));
  });

  test('typed arrays with one entry per request', () => {
    const n = doc.workload.requests;
    for (const s of run.series) {
      assert.ok(s.ttftMs instanceof Float64Array);
      assert.ok(s.replicaOf instanceof Uint32Array);
      assert.ok(s.cachedTokens instanceof Uint32Array);
      assert.equal(s.ttftMs.length, n);
      assert.equal(s.replicaOf.length, n);
      assert.equal(s.cachedTokens.length, n);
    }
  });

  test('agree with the summary: requests and cached tokens per replica, max and mean TTFT', () => {
    for (const [p, s] of run.series.entries()) {
      const row = doc.results[p];
      const perReplica = row.replicas.map(() => ({ requests: 0, cached: 0 }));
      let cached = 0;
      let max = 0;
      let sum = 0;
      for (let i = 0; i < s.ttftMs.length; i++) {
        assert.ok(s.replicaOf[i] < row.replicas.length);
        perReplica[s.replicaOf[i]].requests += 1;
        perReplica[s.replicaOf[i]].cached += s.cachedTokens[i];
        cached += s.cachedTokens[i];
        max = Math.max(max, s.ttftMs[i]);
        sum += s.ttftMs[i];
        assert.ok(s.ttftMs[i] > 0);
      }
      assert.deepEqual(perReplica.map((r) => r.requests), row.replicas.map((r) => r.requests));
      assert.deepEqual(perReplica.map((r) => r.cached), row.replicas.map((r) => r.cached_tokens));
      assert.equal(cached, row.cached_tokens);
      assert.equal(max, row.max_ttft_ms);
      assert.ok(Math.abs(sum / s.ttftMs.length - row.mean_ttft_ms) < 1e-6 * row.mean_ttft_ms);
    }
  });

  test('are copies that survive growth of the wasm heap', () => {
    const before = run.series.map(checksum);
    const lengths = run.series.map((s) => s.ttftMs.length);
    const heapBefore = pr.HEAP8.length;
    // Enough requests to grow the heap well past its current size.
    const big = pr.runScenario('', '[["workload.requests","150000"],["policies","round_robin"]]', null);
    assert.equal(big.ok, true);
    assert.ok(pr.HEAP8.length > heapBefore, `heap did not grow (${heapBefore} bytes)`);
    assert.deepEqual(run.series.map((s) => s.ttftMs.length), lengths);
    assert.deepEqual(run.series.map(checksum), before);
    // The new run's arrays are whole too.
    assert.equal(big.series[0].ttftMs.length, 150000);
    assert.ok(big.series[0].ttftMs.buffer !== pr.HEAP8.buffer);
  });

  test('a second identical run gives identical arrays (determinism)', () => {
    const again = pr.runScenario('', '', null);
    assert.equal(again.resultsJson, run.resultsJson);
    for (const [p, s] of again.series.entries()) {
      assert.deepEqual(s.ttftMs, run.series[p].ttftMs);
      assert.deepEqual(s.replicaOf, run.series[p].replicaOf);
      assert.deepEqual(s.cachedTokens, run.series[p].cachedTokens);
    }
  });
});
