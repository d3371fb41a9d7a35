// The timeline (core/include/prefixroute/sim/timeline.h) is computed by the
// core once: runScenario's series[i].timeline (typed arrays) must hold exactly
// the values `prefixroute --timeline` writes, for fifo and batched
// engines, a session workload, and a cluster larger than the rows shown.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { before, describe, test } from 'node:test';

import { BENCH, loadModule, overridesJson, setArgs } from './helpers.mjs';

let pr;
before(async () => {
  pr = await loadModule();
});

function nativeTimeline(pairs) {
  const dir = fs.mkdtempSync(path.join(fs.realpathSync(process.env.TMPDIR || '/tmp'), 'prefixroute-tl-'));
  try {
    const out = path.join(dir, 'timeline.json');
    execFileSync(BENCH, [...setArgs(pairs), '--json', '', '--timeline', out, '--jobs', '1'], { encoding: 'utf8' });
    return JSON.parse(fs.readFileSync(out, 'utf8'));
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

// [[row ...] per window] of a flat window-major array.
function byWindow(flat, windows, rows) {
  return Array.from({ length: windows }, (_, w) => Array.from(flat.subarray(w * rows, (w + 1) * rows)));
}

const FIELDS = [
  ['requests', 'requests'],
  ['mean_wait_ms', 'meanWaitMs'],
  ['mean_ttft_ms', 'meanTtftMs'],
  ['hit_rate', 'hitRate'],
  ['mean_in_flight', 'meanInFlight'],
  ['groups', 'groups'],
  ['top_group', 'topGroup'],
  ['top_share', 'topShare'],
];

const CASES = {
  'the default scenario (fifo)': [['workload.requests', '2000']],
  'the batched engine on hardware presets': [
    ['workload.requests', '1500'],
    ['cluster.engine', 'batched'],
    ['hardware.model', 'llama-3.1-8b'],
    ['hardware.gpu', 'h100'],
    ['workload.output_tokens_min', '10'],
    ['workload.output_tokens_max', '200'],
  ],
  'a session workload': [['workload.kind', 'sessions'], ['workload.requests', '1500']],
  'more replicas than rows (the pooled row)': [['workload.requests', '1500'], ['cluster.replicas', '40'], ['policies', 'round_robin,affinity']],
};

describe('runScenario timelines equal the native --timeline document', () => {
  for (const [name, pairs] of Object.entries(CASES)) {
    test(name, () => {
      const native = nativeTimeline(pairs);
      const wasm = pr.runScenario('', overridesJson(pairs), null);
      assert.equal(wasm.ok, true, JSON.stringify(wasm.errors));
      assert.equal(native.policies.length, wasm.series.length);
      for (const [i, series] of wasm.series.entries()) {
        const t = series.timeline;
        const n = native.policies[i];
        assert.equal(series.policy, n.policy);
        assert.equal(t.windows, native.windows);
        assert.equal(t.windowMs, native.window_ms);
        assert.equal(t.replicas, native.replicas);
        assert.equal(t.shown, native.replicas_shown);
        assert.equal(t.other, native.other_row);
        assert.equal(t.batched, native.engine === 'batched');
        for (const [key, prop] of FIELDS) assert.deepEqual(byWindow(t[prop], t.windows, t.rows), n[key], `${n.policy} ${key}`);
        if (t.batched) {
          assert.deepEqual(byWindow(t.meanBatch, t.windows, t.rows), n.mean_batch);
          assert.deepEqual(byWindow(t.kvUse, t.windows, t.rows), n.kv_use);
        }
        assert.deepEqual(Array.from(t.groupKeys), n.group_keys);
        // Every request is in some cell: nothing is cut by the row cap.
        assert.equal(t.requests.reduce((a, b) => a + b, 0), native.workload.requests);
      }
      if (pairs.some(([k]) => k === 'cluster.replicas')) {
        assert.equal(native.replicas_shown, 32);
        assert.equal(native.other_row, true);
      }
    });
  }

  test('runShard series carry the same timelines as runScenario (the page\'s pool of workers)', () => {
    const pairs = [['workload.requests', '1500']];
    const whole = pr.runScenario('', overridesJson(pairs), null);
    const sharded = [1, 2, 3].flatMap((k) => pr.runShard('', overridesJson(pairs), k, 3, null).series).sort((a, b) => a.run - b.run);
    const text = (series) => JSON.stringify(series.map((x) => [x.policy, Object.entries(x.timeline).map(([k, v]) => [k, ArrayBuffer.isView(v) ? Array.from(v) : v])]));
    assert.equal(sharded.length, whole.series.length);
    assert.equal(text(sharded), text(whole.series));
  });

  test('--timeline refuses a sweep', () => {
    assert.throws(
      () => execFileSync(BENCH, ['--sweep', 'cluster.replicas=2,4', '--timeline', '/tmp/x.json'], { stdio: 'pipe' }),
      (e) => e.status === 2 && /--timeline needs a single run/.test(String(e.stderr)),
    );
  });
});
