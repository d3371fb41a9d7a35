// runSweep and `prefixroute --sweep` are one program: the sweep JSON
// must be byte-for-byte what the command line writes with --json, and every
// problem must come back as an error value naming its field.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { before, describe, test } from 'node:test';

import { loadModule, overridesJson, runNativeBench, runNativeBenchFailing, SCENARIOS, scenarioFiles, setArgs } from './helpers.mjs';

let pr;
before(async () => {
  pr = await loadModule();
});

/** A small sweep: fast enough for every test run. */
const SMALL = [['workload.requests', '1500']];

describe('sweepJson equals prefixroute --sweep --json byte for byte', () => {
  const cases = [
    { name: 'a range of AffinityBalanced slack', spec: 'affinity_balanced.load_slack_s=0:0.2:3', pairs: SMALL },
    { name: 'a list of arrival rates, two policies', spec: 'workload.arrival_rate_per_s=50,100,150',
      pairs: [...SMALL, ['policies', 'affinity,least_loaded']] },
    { name: 'an integer range (replicas)', spec: 'cluster.replicas=2:6:3', pairs: SMALL },
  ];
  for (const { name, spec, pairs } of cases) {
    test(name, () => {
      const native = runNativeBench(['--sweep', spec, ...setArgs(pairs)]);
      const wasm = pr.runSweep('', overridesJson(pairs), spec, null);
      assert.equal(wasm.ok, true, JSON.stringify(wasm.errors));
      assert.equal(wasm.sweepJson, native.json);
      const doc = JSON.parse(wasm.sweepJson);
      assert.equal(doc.schema, 'prefixroute.sweep/1');
      assert.ok(doc.points.some((p) => p.results.some((r) => r.pareto)), 'some point is on the Pareto front');
    });
  }

  test('on top of a scenario document', () => {
    const file = scenarioFiles().find((f) => f.endsWith('one-hot-tenant.json'));
    const spec = 'affinity_balanced.load_slack_s=0.01,0.1';
    const native = runNativeBench(['--scenario', file, '--sweep', spec, ...setArgs(SMALL)]);
    const wasm = pr.runSweep(fs.readFileSync(file, 'utf8'), overridesJson(SMALL), spec, null);
    assert.equal(wasm.ok, true, JSON.stringify(wasm.errors));
    assert.equal(wasm.sweepJson, native.json);
  });
});

describe('a sweep of a trace: runTraceSweep equals prefixroute --trace FILE --sweep SPEC --json byte for byte', () => {
  const EXCERPT = path.join(SCENARIOS, 'traces/mooncake-conversation-first-1000.jsonl');
  const cases = [
    { name: 'replicas 1 to 8 on the Mooncake excerpt', spec: 'cluster.replicas=1:8:4',
      pairs: [['cluster.cache_tokens', '1000000'], ['policies', 'round_robin,affinity_balanced,expected_ttft']] },
    { name: 'a policy setting, with a time scale and a request limit', spec: 'affinity_balanced.load_slack_s=0,0.05,0.2',
      pairs: [['trace.limit', '300'], ['trace.time_scale', '0.5'], ['policies', 'affinity_balanced,least_loaded']] },
  ];
  for (const { name, spec, pairs } of cases) {
    test(name, () => {
      const native = runNativeBench(['--trace', EXCERPT, '--sweep', spec, ...setArgs(pairs)]);
      const loader = new pr.TraceLoader('mooncake-conversation-first-1000.jsonl', '', overridesJson(pairs));
      try {
        loader.feed(new Uint8Array(fs.readFileSync(EXCERPT)));
        assert.equal(loader.finish().ok, true);
        const points = [];
        const wasm = pr.runTraceSweep(loader, '', overridesJson(pairs), spec, (point) => { points.push(point); });
        assert.equal(wasm.ok, true, JSON.stringify(wasm.errors));
        assert.equal(wasm.sweepJson, native.json);
        assert.equal(JSON.parse(wasm.sweepJson).base_scenario.trace.name, 'mooncake-conversation-first-1000.jsonl');
        assert.deepEqual([...new Set(points)], JSON.parse(wasm.sweepJson).points.map((_, i) => i));
      } finally {
        loader.delete();
      }
    });
  }

  test('keys a trace makes meaningless, bad points and an unread loader are error values naming the field', () => {
    const loader = new pr.TraceLoader('t.jsonl', '', '');
    try {
      assert.match(pr.runTraceSweep(loader, '', '', 'cluster.replicas=1,2', null).errors[0].message, /still being read/);
      loader.feed(fs.readFileSync(EXCERPT, 'utf8').split('\n').slice(0, 50).join('\n'));
      loader.finish();
      const workload = pr.runTraceSweep(loader, '', '', 'workload.arrival_rate_per_s=50,100', null);
      assert.deepEqual(workload.errors.map((e) => e.field), ['(sweep)']);
      assert.match(workload.errors[0].message, /replayed trace replaces/);
      assert.match(pr.runTraceSweep(loader, '', '', 'trace.limit=10,20', null).errors[0].message, /reading setting/);
      const replicates = pr.runTraceSweep(loader, '', '', 'replicates=1,2', null);
      assert.equal(replicates.errors[0].field, 'replicates');
      assert.match(replicates.errors[0].message, /\(sweep value "2"\)/);
      assert.equal(pr.runTraceSweep(loader, '', '', 'cluster.replicas=0,2', null).errors[0].field, 'cluster.replicas');
      assert.equal(pr.runTraceSweep(loader, '', '', 42, null).errors[0].field, '(sweep)');
      assert.equal(pr.runTraceSweep(loader, '', '', 'seed=1,2', 'no').errors[0].field, '(onProgress)');
    } finally {
      loader.delete();
    }
  });
});

describe('progress and cancel', () => {
  test('onProgress sees every point in order; returning false cancels', () => {
    const seen = [];
    const ok = pr.runSweep('', overridesJson(SMALL), 'seed=1,2,3', (point, phase, done, total) => {
      seen.push(point);
      assert.ok(done <= total && phase >= 0);
      return true;
    });
    assert.equal(ok.ok, true);
    assert.deepEqual([...new Set(seen)], [0, 1, 2]);
    const cancelled = pr.runSweep('', overridesJson(SMALL), 'seed=1,2,3', (point) => point < 1);
    assert.equal(cancelled.ok, false);
    assert.equal(cancelled.cancelled, true);
    assert.deepEqual(cancelled.errors, [{ field: '(run)', message: 'cancelled' }]);
  });

  test('a throwing onProgress is an (onProgress) error, and the module still works', () => {
    const r = pr.runSweep('', overridesJson(SMALL), 'seed=1,2', () => {
      throw new Error('boom');
    });
    assert.deepEqual(r.errors, [{ field: '(onProgress)', message: 'onProgress threw: boom' }]);
    assert.equal(pr.runSweep('', overridesJson(SMALL), 'seed=1,2', null).ok, true);
  });
});

describe('errors are values naming the field, never a throw', () => {
  const errors = (args) => {
    let r;
    assert.doesNotThrow(() => {
      r = pr.runSweep(...args);
    });
    assert.equal(r.ok, false, JSON.stringify(r));
    return r.errors;
  };
  const field = (args) => errors(args).map((e) => e.field);
  // The one error's message: what is allowed, and what was given.
  const message = (args) => {
    const e = errors(args);
    assert.equal(e.length, 1, JSON.stringify(e));
    return e[0].message;
  };

  test('a bad swept value names the field and the value, as the CLI does', () => {
    const spec = 'cluster.replicas=4,0';
    const r = pr.runSweep('', '', spec, null);
    assert.equal(r.ok, false);
    assert.equal(r.errors.length, 1);
    const { field, message } = r.errors[0];
    assert.equal(field, 'cluster.replicas');
    assert.match(message, /\(sweep value "0"\)$/);
    const native = runNativeBenchFailing(['--sweep', spec]);
    assert.equal(native.status, 2);
    assert.ok(native.stderr.includes(`  ${field}: ${message}\n`), native.stderr);
  });

  test('the spec itself: (sweep)', () => {
    assert.deepEqual(field(['', '', 'no-equals-sign', null]), ['(sweep)']);
    assert.deepEqual(field(['', '', 'seed=1:2:201', null]), ['(sweep)']);
    assert.deepEqual(field(['', '', 'seed=1:2:1.5', null]), ['(sweep)']);
    assert.deepEqual(field(['', '', 42, null]), ['(sweep)']);
    assert.deepEqual(field(['', '', `seed=${'1,'.repeat(20000)}1`, null]), ['(sweep)']);
    assert.deepEqual(field(['', '', Array.from({ length: 201 }, (_, i) => i).join(',').replace(/^/, 'seed='), null]), ['(sweep)']);
    assert.match(message(['', '', 'no-equals-sign', null]), /^expected key=v1,v2,\.\.\. or key=from:to:steps, e\.g\. /);
    const range = /^seed: a range must be from:to:steps with numbers and 2 <= steps <= 200; got "1:2:(201|1\.5)"$/;
    assert.match(message(['', '', 'seed=1:2:201', null]), range);
    assert.match(message(['', '', 'seed=1:2:1.5', null]), range);
    assert.match(message(['', '', 42, null]), /^sweepSpec must be a string: key=v1,v2,\.\.\. or key=from:to:steps$/);
    assert.match(message(['', '', `seed=${'1,'.repeat(20000)}1`, null]), /^sweepSpec has 40006 characters; at most 16384 are read$/);
    assert.match(message(['', '', Array.from({ length: 201 }, (_, i) => i).join(',').replace(/^/, 'seed='), null]),
      /^seed: a sweep needs 1 to 200 values$/);
  });

  test('absurd sizes are refused up front', () => {
    // 200 points x 200k requests: refused as too many requests in all ...
    const r = pr.runSweep('', overridesJson([['workload.requests', '200000']]), 'seed=1:200:200', null);
    assert.deepEqual(r.errors.map((e) => e.field), ['(sweep)']);
    assert.match(r.errors[0].message, /40000000 requests/);
    // ... and one point too big for the heap is refused like runScenario refuses it.
    const big = pr.runSweep('', '', 'workload.requests=1000,1000000000', null);
    assert.ok(big.errors.some((e) => e.field === '(memory)' || e.field === 'workload.requests'), JSON.stringify(big.errors));
  });

  test('bad arguments', () => {
    assert.deepEqual(field([1, '', 'seed=1', null]), ['(document)']);
    assert.deepEqual(field(['', '{', 'seed=1', null]), ['(overrides)']);
    assert.deepEqual(field(['', '', 'seed=1', 'not a function']), ['(onProgress)']);
    assert.deepEqual(field(['', '', 'nope.key=1', null]), ['nope']);
    assert.deepEqual(field(['', '', 'trace.name=x.jsonl', null]), ['trace.name']);
    assert.match(message([1, '', 'seed=1', null]), /^scenarioJson must be a string/);
    assert.match(message(['', '{', 'seed=1', null]), /^not valid JSON \(.*\); must be a JSON array of \[key, valueText\] pairs/);
    assert.match(message(['', '', 'seed=1', 'not a function']), /^must be a function \(point, phase, done, total\) => boolean, or null$/);
    assert.match(message(['', '', 'nope.key=1', null]), /^unknown key; allowed top-level keys: schema_version, .* \(sweep value "1"\)$/);
    assert.match(message(['', '', 'trace.name=x.jsonl', null]), /runs only the synthetic workload .* \(sweep value "x\.jsonl"\)$/);
  });

  test('a base scenario wrong whatever the value is reported once', () => {
    assert.deepEqual(field(['{"cluster":{"replicas":0}}', '', 'seed=1,2,3', null]), ['cluster.replicas']);
    // The base's own error, not a swept value's: no "(sweep value ...)".
    assert.equal(message(['{"cluster":{"replicas":0}}', '', 'seed=1,2,3', null]), 'must be an integer in [1, 4096] (replicas); got 0');
  });
});

describe('expandSweep is the core\'s expansion', () => {
  test('a real-valued range is evenly spaced', () => {
    assert.deepEqual(pr.expandSweep('affinity_balanced.load_slack_s=0:0.2:3'),
      { ok: true, key: 'affinity_balanced.load_slack_s', values: ['0', '0.1', '0.2'] });
  });
  test('an integer range is rounded half up, each value once', () => {
    assert.deepEqual(pr.expandSweep('cluster.replicas=1:4:5').values, ['1', '2', '3', '4']);
    assert.deepEqual(pr.expandSweep('cluster.replicas=2:3:4').values, ['2', '3']);
  });
  test('a list is kept as given', () => {
    assert.deepEqual(pr.expandSweep('workload.arrival_rate_per_s=50,100').values, ['50', '100']);
  });
  test('a bad spec is an error naming (sweep)', () => {
    const r = pr.expandSweep('cluster.replicas=1:4:1');
    assert.equal(r.ok, false);
    assert.equal(r.errors[0].field, '(sweep)');
    assert.match(r.errors[0].message, /^cluster\.replicas: a range must be from:to:steps with numbers and 2 <= steps <= 200; got "1:4:1"$/);
    assert.equal(pr.expandSweep(7).ok, false);
    assert.deepEqual(pr.expandSweep(7).errors, [{ field: '(sweep)', message: 'sweepSpec must be a string: key=v1,v2,... or key=from:to:steps' }]);
  });
});
