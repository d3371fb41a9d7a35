// The module's shards and the command line's jobs and shards are one program:
// runShard's documents are the bytes `prefixroute --shard K/N --json`
// writes, mergeShards of them is runScenario's resultsJson byte for byte,
// and that is the native output with --jobs 1 and --jobs 4 alike. A wrong
// set of shards is an error value naming the problem.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { before, describe, test } from 'node:test';

import { BENCH, ROOT, loadModule, overridesJson, runNativeBench, setArgs } from './helpers.mjs';

let pr;
before(async () => {
  pr = await loadModule();
});

const SMALL = [['workload.requests', '600'], ['policies', 'round_robin,affinity,expected_ttft,dynamo_kv']];
const REPLICATED = [...SMALL, ['replicates', '3']];
// The batched engine: its rows' TPOT, output rate, batch and preemption
// figures, per-replica step totals and replicate 0's timeline must survive
// the shard documents too.
const BATCHED = [...SMALL, ['cluster.engine', 'batched'], ['hardware.model', 'llama-3.1-8b'], ['hardware.gpu', 'h100'],
  ['workload.output_tokens_min', '10'], ['workload.output_tokens_max', '200']];
const BATCHED_REPLICATED = [...BATCHED, ['replicates', '3']];

/** runShard for every k of n, in turn (the page gives each to a worker). */
function shards(pairs, n) {
  return Array.from({ length: n }, (_, i) => {
    const r = pr.runShard('', overridesJson(pairs), i + 1, n, null);
    assert.equal(r.ok, true, JSON.stringify(r.errors));
    return r;
  });
}

/** The native shard document K/N. */
function nativeShard(pairs, k, n, extra = []) {
  const dir = fs.mkdtempSync(path.join(fs.realpathSync(process.env.TMPDIR || '/tmp'), 'prefixroute-shard-'));
  try {
    const out = path.join(dir, 'shard.json');
    execFileSync(BENCH, [...extra, ...setArgs(pairs), '--shard', `${k}/${n}`, '--json', out], { encoding: 'utf8' });
    return fs.readFileSync(out, 'utf8');
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

describe('jobs invariance: one result for --jobs 1, --jobs 4, the module and merged shards', () => {
  for (const [name, pairs] of [['one seed', SMALL], ['3 replicates', REPLICATED], ['batched engine, one seed', BATCHED],
    ['batched engine, 3 replicates', BATCHED_REPLICATED]]) {
    test(name, () => {
      const one = runNativeBench([...setArgs(pairs), '--jobs', '1']).json;
      const four = runNativeBench([...setArgs(pairs), '--jobs', '4']).json;
      assert.equal(four, one, '--jobs 4 differs from --jobs 1');
      const wasm = pr.runScenario('', overridesJson(pairs), null);
      assert.equal(wasm.ok, true, JSON.stringify(wasm.errors));
      assert.equal(wasm.resultsJson, one, 'runScenario differs from the native run');
      const merged = pr.mergeShards(shards(pairs, 3).map((s) => s.shardJson));
      assert.equal(merged.ok, true, JSON.stringify(merged.errors));
      assert.equal(merged.resultsJson, one, 'merged shards differ from the native run');
    });
  }
});

describe('runShard and mergeShards', () => {
  test('each shard document is the command line\'s, byte for byte', () => {
    const docs = shards(REPLICATED, 3);
    for (let k = 1; k <= 3; ++k) assert.equal(docs[k - 1].shardJson, nativeShard(REPLICATED, k, 3), `shard ${k}/3`);
    const batched = shards(BATCHED_REPLICATED, 2);
    for (let k = 1; k <= 2; ++k)
      assert.equal(batched[k - 1].shardJson, nativeShard(BATCHED_REPLICATED, k, 2), `batched shard ${k}/2`);
  });

  test('any split, in any order, merges to runScenario\'s bytes', () => {
    const want = pr.runScenario('', overridesJson(SMALL), null).resultsJson;
    for (const n of [1, 2, 4, 7]) {
      const docs = shards(SMALL, n).map((s) => s.shardJson).reverse();
      const merged = pr.mergeShards(docs);
      assert.equal(merged.ok, true, JSON.stringify(merged.errors));
      assert.equal(merged.resultsJson, want, `${n} shards`);
    }
  });

  test('the shards\' series, put together by run, are runScenario\'s', () => {
    const whole = pr.runScenario('', overridesJson(REPLICATED), null);
    const parts = shards(REPLICATED, 3).flatMap((s) => s.series).sort((a, b) => a.run - b.run);
    assert.deepEqual(parts.map((s) => s.run), [0, 1, 2, 3]);
    assert.equal(parts.length, whole.series.length);
    parts.forEach((s, i) => {
      assert.equal(s.policy, whole.series[i].policy);
      assert.deepEqual(s.ttftMs, whole.series[i].ttftMs);
      assert.deepEqual(s.replicaOf, whole.series[i].replicaOf);
      assert.deepEqual(s.cachedTokens, whole.series[i].cachedTokens);
    });
  });

  test('onProgress sees only the shard\'s runs; returning false cancels', () => {
    const runs = new Set();
    const ok = pr.runShard('', overridesJson(REPLICATED), 2, 3, (run) => {
      runs.add(run);
      return true;
    });
    assert.equal(ok.ok, true);
    assert.deepEqual([...runs].sort((a, b) => a - b), [1, 4, 7, 10, 13, 16]);  // 18 runs: i mod 3 == 1
    const cancelled = pr.runShard('', overridesJson(REPLICATED), 1, 3, () => false);
    assert.deepEqual(cancelled, { ok: false, errors: [{ field: '(run)', message: 'cancelled' }], cancelled: true });
  });
});

describe('a wrong set of shards is refused, naming the problem', () => {
  const docs = () => shards(SMALL, 3).map((s) => s.shardJson);
  const errors = (r) => {
    assert.equal(r.ok, false, 'merged a wrong set');
    return r.errors.map((e) => `${e.field}: ${e.message}`);
  };

  test('a shard missing', () => {
    const d = docs();
    assert.deepEqual(errors(pr.mergeShards([d[0], d[2]])),
      ['(shards): missing shard 2/3: every shard 1/3 .. 3/3 must be given once']);
  });

  test('a shard twice', () => {
    const d = docs();
    assert.deepEqual(errors(pr.mergeShards([d[0], d[1], d[0]])), [
      '(shards): shard 1/3 is given twice: documents[0] and documents[2]',
      '(shards): missing shard 3/3: every shard 1/3 .. 3/3 must be given once',
    ]);
  });

  test('a shard of another scenario', () => {
    const d = docs();
    d[1] = pr.runShard('', overridesJson([...SMALL, ['seed', '9']]), 2, 3, null).shardJson;
    assert.deepEqual(errors(pr.mergeShards(d)),
      ['(shard documents[1]): runs another scenario than documents[0]: seed is 9 here and 42 there']);
  });

  test('a shard of another split', () => {
    const d = docs();
    d[2] = shards(SMALL, 4)[2].shardJson;
    assert.match(errors(pr.mergeShards(d))[0], /is shard 3\/4 but documents\[0\] is one of 3/);
  });

  test('what is not a list of shard documents', () => {
    assert.deepEqual(errors(pr.mergeShards('x')), ['(shards): documents must be an array of shard documents (strings)']);
    assert.deepEqual(errors(pr.mergeShards(['{}', 7])), ['(shards): documents[1] must be a string (a shard document)']);
    assert.deepEqual(errors(pr.mergeShards([])), ['(shards): no shard documents given; give all N shards of one run']);
    const results = pr.runScenario('', overridesJson(SMALL), null).resultsJson;
    assert.match(errors(pr.mergeShards([results]))[0], /^\(shard documents\[0\]\): not a shard document/);
    assert.match(errors(pr.mergeShards(['{']))[0], /^\(shard documents\[0\]\): not JSON/);
  });

  test('an experiment\'s shards to mergeSweepShards, a sweep\'s to mergeShards', () => {
    assert.match(errors(pr.mergeSweepShards(docs()))[0], /merge them with mergeShards/);
    const sweep = pr.runSweepShard('', overridesJson(SMALL), 'seed=1,2', 1, 1, null);
    assert.match(errors(pr.mergeShards([sweep.shardJson]))[0], /merge them with mergeSweepShards/);
  });

  test('bad shard indices and runScenario\'s own refusals', () => {
    for (const [k, n] of [[0, 3], [4, 3], [1.5, 3], ['1', 3], [1, 0], [1, 100001]])
      assert.deepEqual(pr.runShard('', '', k, n, null).errors.map((e) => e.field), ['(shard)'], `${k}/${n}`);
    const huge = overridesJson([['workload.requests', '10000000'], ['cluster.cache_tokens', '1000000000']]);
    assert.deepEqual(pr.runShard('', huge, 1, 2, null).errors, pr.runScenario('', huge, null).errors);
    assert.deepEqual(pr.runShard('', overridesJson([['trace.name', 'x.jsonl']]), 1, 2, null).errors.map((e) => e.field),
      ['trace.name']);
    assert.deepEqual(pr.runShard('', '', 1, 2, 'no').errors.map((e) => e.field), ['(onProgress)']);
  });
});

describe('sweep shards', () => {
  const spec = 'cluster.replicas=2:4:3';
  const pairs = [['workload.requests', '400'], ['policies', 'affinity,least_loaded']];

  test('merged, they are runSweep\'s bytes and the command line\'s', () => {
    const docs = [1, 2, 3].map((k) => {
      const r = pr.runSweepShard('', overridesJson(pairs), spec, k, 3, null);
      assert.equal(r.ok, true, JSON.stringify(r.errors));
      return r.shardJson;
    });
    assert.equal(docs[1], nativeShard(pairs, 2, 3, ['--sweep', spec]));
    const merged = pr.mergeSweepShards(docs);
    assert.equal(merged.ok, true, JSON.stringify(merged.errors));
    assert.equal(merged.sweepJson, pr.runSweep('', overridesJson(pairs), spec, null).sweepJson);
    assert.equal(merged.sweepJson, runNativeBench([...setArgs(pairs), '--sweep', spec, '--jobs', '4']).json);
  });

  test('a sweep shard takes runSweep\'s checks', () => {
    assert.deepEqual(pr.runSweepShard('', '', 'cluster.replicas=4,0', 1, 2, null).errors.map((e) => e.field),
      ['cluster.replicas']);
    assert.deepEqual(pr.runSweepShard('', '', 'seed=1', 3, 2, null).errors.map((e) => e.field), ['(shard)']);
  });
});

describe('trace shards (the page\'s pool replays a trace read once per worker)', () => {
  const EXCERPT = path.join(ROOT, 'scenarios/traces/mooncake-conversation-first-1000.jsonl');
  const pairs = [['cluster.replicas', '8'], ['cluster.cache_tokens', '1000000'], ['trace.limit', '300'],
    ['policies', 'round_robin,affinity,expected_ttft,dynamo_kv']];
  const loaderOf = (bytes) => {
    const loader = new pr.TraceLoader(path.basename(EXCERPT), '', overridesJson(pairs));
    loader.feed(bytes);
    assert.equal(loader.finish().ok, true);
    return loader;
  };

  test('runTraceShard on 3 loaders, merged, is runTrace\'s results JSON and the command line\'s shard', () => {
    const bytes = fs.readFileSync(EXCERPT);
    const whole = loaderOf(bytes);
    const want = pr.runTrace(whole, '', overridesJson(pairs), null);
    assert.equal(want.ok, true, JSON.stringify(want.errors));
    whole.delete();
    const docs = [1, 2, 3].map((k) => {
      const loader = loaderOf(bytes);
      const r = pr.runTraceShard(loader, '', overridesJson(pairs), k, 3, null);
      loader.delete();
      assert.equal(r.ok, true, JSON.stringify(r.errors));
      return r;
    });
    assert.equal(docs[1].shardJson, nativeShard(pairs, 2, 3, ['--trace', EXCERPT]));
    const merged = pr.mergeShards(docs.map((d) => d.shardJson).reverse());
    assert.equal(merged.ok, true, JSON.stringify(merged.errors));
    assert.equal(merged.resultsJson, want.resultsJson);
    const series = docs.flatMap((d) => d.series).sort((a, b) => a.run - b.run);
    assert.deepEqual(series.map((s) => s.policy), want.series.map((s) => s.policy));
    assert.deepEqual(series[2].ttftMs, want.series[2].ttftMs);
    for (const d of docs) assert.equal(d.scenarioJson, want.scenarioJson);
  });

  test('runTraceShard refuses bad shard indices and an unfinished loader', () => {
    const loader = new pr.TraceLoader('x.jsonl', '', '');
    assert.deepEqual(pr.runTraceShard(loader, '', '', 1, 2, null).errors.map((e) => e.field), ['(trace)']);
    assert.deepEqual(pr.runTraceShard(loader, '', '', 3, 2, null).errors.map((e) => e.field), ['(shard)']);
    loader.delete();
  });
});
