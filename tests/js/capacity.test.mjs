// The capacity search in the module: runCapacity's capacityJson is byte for
// byte what `prefixroute --capacity --json` writes (the search is
// deterministic and its answer the same for any number of jobs), progress is
// reported after every run and can cancel, and bad input comes back as
// values naming the field.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { before, describe, test } from 'node:test';

import { ROOT, loadModule, overridesJson, runNativeBench, setArgs } from './helpers.mjs';

let pr;
before(async () => {
  pr = await loadModule();
});

describe('capacityJson equals the native --capacity output byte for byte', () => {
  const cases = [
    ['the reference scenario, every policy, p99 TTFT <= 200 ms, priced',
      [['slo.ttft_ms', '200'], ['policies', 'all'], ['capacity.gpu_hour_price', '2.5'], ['hardware.tp', '2']]],
    ['a closed client with replicates (concurrency, intervals)',
      [['slo.ttft_ms', '80'], ['slo.ttft_percentile', '90'], ['client.kind', 'closed'], ['client.concurrency', '8'],
        ['workload.requests', '1000'], ['replicates', '3'], ['policies', 'round_robin,affinity']]],
    ['the batched engine with TTFT and TPOT targets',
      [['cluster.engine', 'batched'], ['hardware.model', 'llama-3.1-8b'], ['hardware.gpu', 'h100'],
        ['workload.requests', '800'], ['workload.output_tokens_max', '100'], ['slo.ttft_ms', '300'],
        ['slo.tpot_ms', '20'], ['slo.tpot_percentile', '90'], ['capacity.max_replicas', '16'],
        ['policies', 'round_robin,llmd_epp']]],
  ];
  for (const [title, pairs] of cases) {
    test(title, () => {
      const native = runNativeBench(['--capacity', '--jobs', '2', ...setArgs(pairs)]);
      let calls = 0;
      const wasm = pr.runCapacity('', overridesJson(pairs), (runs, done, searches) => {
        calls += 1;
        assert.ok(runs >= 1 && done <= searches);
        return true;
      });
      assert.equal(wasm.ok, true, JSON.stringify(wasm.errors));
      assert.equal(wasm.capacityJson, native.json);
      assert.ok(calls > 0);
      const doc = JSON.parse(wasm.capacityJson);
      assert.equal(doc.schema, 'prefixroute.capacity/1');
      assert.ok(doc.results.some((r) => r.gpus !== null));
    });
  }
});

describe('runTraceCapacity equals prefixroute --trace FILE --capacity byte for byte', () => {
  const file = path.join(ROOT, 'scenarios/traces/mooncake-conversation-first-1000.jsonl');
  for (const [title, pairs] of [
    ['the fifo engine, p90 TTFT <= 1 s, every policy', [['slo.ttft_ms', '1000'], ['slo.ttft_percentile', '90'], ['policies', 'all']]],
    ['the batched engine on Llama-3.1-8B / H100, p90 TTFT <= 3 s, from time_scale 2',
      [['cluster.engine', 'batched'], ['hardware.model', 'llama-3.1-8b'], ['hardware.gpu', 'h100'], ['trace.time_scale', '2'],
        ['slo.ttft_ms', '3000'], ['slo.ttft_percentile', '90'], ['capacity.max_replicas', '16'],
        ['policies', 'round_robin,llmd_epp']]],
  ]) {
    test(title, () => {
      const native = runNativeBench(['--trace', file, '--capacity', '--jobs', '2', ...setArgs(pairs)]);
      const loader = new pr.TraceLoader(path.basename(file), '', overridesJson(pairs));
      loader.feed(fs.readFileSync(file));
      assert.equal(loader.finish().ok, true);
      const wasm = pr.runTraceCapacity(loader, '', overridesJson(pairs), null);
      loader.delete();
      assert.equal(wasm.ok, true, JSON.stringify(wasm.errors));
      assert.equal(wasm.capacityJson, native.json);
      assert.equal(JSON.parse(wasm.capacityJson).load.key, 'trace.time_scale');
    });
  }
});

describe('runCapacity reports progress, cancels and refuses bad input', () => {
  test('false from onProgress cancels', () => {
    const result = pr.runCapacity('', overridesJson([['slo.ttft_ms', '200']]), (runs) => runs < 3);
    assert.equal(result.ok, false);
    assert.equal(result.cancelled, true);
  });
  test('a throwing onProgress stops with its message', () => {
    const result = pr.runCapacity('', overridesJson([['slo.ttft_ms', '200']]), () => {
      throw new Error('boom');
    });
    assert.equal(result.ok, false);
    assert.equal(result.errors[0].field, '(onProgress)');
    assert.match(result.errors[0].message, /boom/);
  });
  test('no SLO target names slo.ttft_ms', () => {
    const result = pr.runCapacity('', '', null);
    assert.equal(result.ok, false);
    assert.equal(result.errors[0].field, 'slo.ttft_ms');
  });
  test('a bad SLO value names its field', () => {
    for (const [key, value] of [['slo.ttft_ms', '-5'], ['slo.ttft_percentile', '0'], ['slo.tpot_ms', '40']]) {
      const result = pr.runCapacity('', overridesJson([[key, value], ['slo.ttft_ms', key === 'slo.ttft_ms' ? value : '100']]), null);
      assert.equal(result.ok, false, key);
      assert.ok(result.errors.some((e) => e.field === key), `${key}: ${JSON.stringify(result.errors)}`);
    }
  });
  test('a burst client names client.kind', () => {
    const result = pr.runCapacity('', overridesJson([['slo.ttft_ms', '100'], ['client.kind', 'burst']]), null);
    assert.equal(result.ok, false);
    assert.equal(result.errors[0].field, 'client.kind');
  });
  test('arguments of the wrong type are values', () => {
    assert.equal(pr.runCapacity(5, '', null).errors[0].field, '(document)');
    assert.equal(pr.runCapacity('', '', 7).errors[0].field, '(onProgress)');
  });
});
