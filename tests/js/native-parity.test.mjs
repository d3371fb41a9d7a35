// The module and the native benchmark are one program: for every preset
// scenario, and with CLI-style overrides, runScenario's resultsJson must be
// byte-for-byte what `prefixroute --json` writes.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { before, describe, test } from 'node:test';

import {
  BENCH,
  loadModule,
  overridesJson,
  runNative,
  runNativeBench,
  runNativeBenchFailing,
  scenarioFiles,
  setArgs,
} from './helpers.mjs';

let pr;
before(async () => {
  pr = await loadModule();
});

describe('resultsJson equals the native benchmark output byte for byte', () => {
  const files = scenarioFiles();
  test('the preset scenarios exist', () => {
    const names = files.map((f) => path.basename(f));
    for (const wanted of ['reference.json', 'cache-fits.json', 'one-hot-tenant.json', 'overloaded.json'])
      assert.ok(names.includes(wanted), `scenarios/${wanted} is missing (have: ${names.join(', ')})`);
  });

  for (const file of files) {
    test(`scenarios/${path.basename(file)}`, () => {
      const native = runNativeBench(['--scenario', file]);
      const wasm = pr.runScenario(fs.readFileSync(file, 'utf8'), '', null);
      assert.equal(wasm.ok, true, JSON.stringify(wasm.errors));
      assert.equal(wasm.resultsJson, native.json);
    });
  }

  test('the default scenario ("" in, no --scenario)', () => {
    const native = runNativeBench([]);
    const wasm = pr.runScenario('', '', null);
    assert.equal(wasm.ok, true);
    assert.equal(wasm.resultsJson, native.json);
  });

  test('a disaggregated topology (prefill and decode pools, llm-d split rule, shared links)', () => {
    const pairs = [
      ['topology.kind', 'disaggregated'],
      ['topology.kv_bytes_per_token', '131072'],
      ['topology.prefill_replicas', '3'],
      ['topology.decode_replicas', '2'],
      ['topology.split', 'llmd_prefix'],
      ['topology.decode_choice', 'power_of_two'],
      ['topology.link', 'custom'],
      ['topology.link_gb_per_s', '0.5'],
      ['cluster.decode_ms_per_token', '5'],
      ['workload.output_tokens_max', '64'],
      ['workload.requests', '1500'],
      ['policies', 'affinity,least_loaded,dynamo_kv'],
    ];
    const native = runNativeBench(setArgs(pairs));
    const wasm = pr.runScenario('', overridesJson(pairs), null);
    assert.equal(wasm.ok, true, JSON.stringify(wasm.errors));
    assert.ok(JSON.parse(native.json).results[0].pools.length === 2, 'the results carry the two pools');
    assert.equal(wasm.resultsJson, native.json);
  });

  test('overrides behave like --set key=value', () => {
    const pairs = [
      ['cluster.replicas', '6'],
      ['workload.requests', '3000'],
      ['policies', 'affinity,round_robin'],
      ['seed', '7'],
      ['affinity_balanced.load_slack_s', '0.02'],
    ];
    const native = runNativeBench(setArgs(pairs));
    const wasm = pr.runScenario('', overridesJson(pairs), null);
    assert.equal(wasm.ok, true, JSON.stringify(wasm.errors));
    assert.equal(wasm.resultsJson, native.json);
  });

  // The batched engine: Llama-3.1-8B on H100s with decode, every policy;
  // a small KV capacity that forces preemption; DeepSeek-V3's expert reads.
  const batched = [
    ['hardware.model', 'llama-3.1-8b'], ['hardware.gpu', 'h100'], ['cluster.engine', 'batched'],
    ['workload.requests', '1500'], ['workload.output_tokens_min', '10'], ['workload.output_tokens_max', '300'],
    ['policies', 'all'],
  ];
  for (const [title, pairs] of [
    ['the batched engine on a hardware preset, every policy', batched],
    ['the batched engine preempting under a small KV capacity',
      [...batched, ['cluster.cache_tokens', '6000'], ['cluster.kv_block_tokens', '32'], ['workload.arrival_rate_per_s', '400'],
        ['router.kv_event_lag_ms', '5'], ['policies', 'round_robin,llmd_epp,dynamo_kv']]],
    ['the batched engine under computed prefix reuse, a small KV capacity and lagged KV events',
      [...batched, ['cluster.prefix_reuse', 'computed'], ['cluster.cache_tokens', '6000'], ['cluster.kv_block_tokens', '32'],
        ['workload.arrival_rate_per_s', '400'], ['router.kv_event_lag_ms', '5'],
        ['policies', 'round_robin,dynamo_kv,expected_ttft,sglang_cache_aware']]],
    ['DeepSeek-V3 on 8 H200s with FP8 KV',
      [...batched, ['hardware.model', 'deepseek-v3'], ['hardware.gpu', 'h200'], ['hardware.tp', '8'], ['hardware.kv_dtype', 'fp8'],
        ['policies', 'expected_ttft,sglang_cache_aware']]],
    // Each benchmark client: open loop at a constant rate and in a burst, a
    // capped closed loop with a timeout, Poisson stages with a warm-up under
    // the batched engine, closed stages with replicates.
    ['a constant client', [['client.kind', 'constant'], ['client.rate_per_s', '150'], ['policies', 'all']]],
    ['a burst client', [['client.kind', 'burst'], ['workload.requests', '500'], ['policies', 'all']]],
    ['a capped closed loop with a timeout and think time',
      [['client.kind', 'closed'], ['client.concurrency', '6'], ['client.rate_per_s', '80'], ['client.think_s', '0.01'],
        ['client.timeout_s', '0.2'], ['policies', 'all']]],
    ['Poisson stages with a warm-up under the batched engine',
      [...batched, ['client.stages', '20x5,60x5'], ['client.warmup', '10x2'], ['client.stage_interval_s', '1'],
        ['policies', 'round_robin,llmd_epp,dynamo_kv,expected_ttft']]],
    ['closed stages with replicates',
      [['client.kind', 'closed'], ['client.stages', '2x3,8x3'], ['replicates', '2'],
        ['policies', 'round_robin,affinity_balanced,sglang_cache_aware']]],
    // SLO targets: attainment, goodput and met in every row (TPOT under the batched engine, with replicates).
    ['SLO targets on TTFT and TPOT, 2 replicates',
      [...batched, ['slo.ttft_ms', '300'], ['slo.ttft_percentile', '95'], ['slo.tpot_ms', '25'],
        ['slo.tpot_percentile', '90'], ['replicates', '2'], ['policies', 'round_robin,llmd_epp,expected_ttft']]],
    ['a TTFT target with a closed client and a timeout',
      [['client.kind', 'closed'], ['client.concurrency', '6'], ['client.timeout_s', '0.2'], ['slo.ttft_ms', '50'],
        ['slo.ttft_percentile', '99.9'], ['policies', 'all']]],
    // llm-d's scheduler away from its defaults: the precise index on lagged
    // KV events with every scorer and the weighted-random picker (the one
    // picker that takes a logarithm), and the affinity filter with token load.
    ['llm-d scheduler: precise prefix, every scorer, weighted-random picker, lagged KV events',
      [...batched, ['router.kv_event_lag_ms', '20'], ['workload.kind', 'sessions'], ['policies', 'llmd_scheduler'],
        ['llmd_scheduler.prefix_mode', 'precise'], ['llmd_scheduler.block_size', '16'], ['llmd_scheduler.picker', 'weighted_random'],
        ['llmd_scheduler.active_request_weight', '1'], ['llmd_scheduler.no_hit_lru_weight', '1'], ['llmd_scheduler.load_aware_weight', '1'],
        ['llmd_scheduler.token_load_weight', '1'], ['llmd_scheduler.session_weight', '1']]],
    ['llm-d scheduler: affinity filter with the TTFT gate, exploration and token load',
      [...batched, ['policies', 'llmd_scheduler'], ['llmd_scheduler.filter', 'prefix_cache_affinity'],
        ['llmd_scheduler.block_size', '16'], ['llmd_scheduler.peak_prefill_tokens_per_s', '20000'],
        ['llmd_scheduler.max_ttft_penalty_ms', '50'], ['llmd_scheduler.exploration_probability', '0.1'],
        ['llmd_scheduler.prefix_weight', '0'], ['llmd_scheduler.queue_weight', '0'], ['llmd_scheduler.kv_weight', '0'],
        ['llmd_scheduler.token_load_weight', '1']]],
    // The batched engine with main's workload kinds, new routers and replicates.
    ['the batched engine on agent loops, 3 replicates, the session and gateway routers',
      [...batched, ['workload.kind', 'agentic'], ['workload.requests', '600'], ['replicates', '3'],
        ['policies', 'session_sticky,dynamo_kv,lmetric,smg_least_load,aibrix_prefix']]],
  ]) {
    test(title, () => {
      const native = runNativeBench(setArgs(pairs));
      const wasm = pr.runScenario('', overridesJson(pairs), null);
      assert.equal(wasm.ok, true, JSON.stringify(wasm.errors));
      assert.equal(wasm.resultsJson, native.json);
    });
  }

  test('hardwareSummary equals prefixroute --hardware', () => {
    for (const pairs of [[], batched, [['hardware.model', 'qwen2.5-32b'], ['hardware.gpu', 'a100'], ['hardware.tp', '2'],
      ['cluster.cache_tokens', '100000']]]) {
      const native = runNative(BENCH, ['--hardware', ...setArgs(pairs)]);
      const wasm = pr.hardwareSummary('', overridesJson(pairs));
      assert.equal(wasm.ok, true, JSON.stringify(wasm.errors));
      assert.equal(wasm.summaryJson + '\n', native);
    }
    const refused = pr.hardwareSummary('', overridesJson([['hardware.model', 'llama-3.1-70b'], ['hardware.gpu', 'a100']]));
    assert.equal(refused.ok, false);
    assert.equal(refused.errors[0].field, 'hardware.tp');
    assert.match(refused.errors[0].message, /hardware\.gpu = a100/);
  });

  // Also three router instances, so every policy runs as three objects.
  test('every catalogued policy, with decode, lagged KV events, three routers and the off-by-default flags on', () => {
    const pairs = [
      ['policies', 'all'],
      ['router.instances', '3'],
      ['workload.requests', '1500'],
      ['cluster.replicas', '6'],
      ['cluster.decode_ms_per_token', '20'],
      ['router.kv_event_lag_ms', '30'],
      ['dynamo_kv.predicted_ttl_s', '5'],
      ['llmd_epp.session_weight', '2'],
      ['sglang_cache_aware.gate', 'per_request'],
      ['session_sticky.mode', 'soft'],
      ['smg_least_load.queued_tokens', 'waiting_requests'],
      ['aibrix_load_balance.queued_weight', '0.5'],
    ];
    const native = runNativeBench(setArgs(pairs));
    const wasm = pr.runScenario('', overridesJson(pairs), null);
    assert.equal(wasm.ok, true, JSON.stringify(wasm.errors));
    assert.equal(wasm.resultsJson, native.json);
  });
  // Dynamo's router queue behind two routers, on both engines, with a
  // threshold low enough that requests are held (their TTFTs differ from the
  // queue's off run).
  test('the router queue behind two router instances, fifo and batched', () => {
    for (const [engine, order, decodeMs] of [['fifo', 'fcfs', '20'], ['batched', 'spf', '0']]) {
      const pairs = [
        ['policies', 'dynamo_kv,round_robin'], ['workload.requests', '800'], ['cluster.replicas', '3'],
        ['cluster.engine', engine], ['cluster.decode_ms_per_token', decodeMs], ['router.instances', '2'],
        ['dynamo_kv.router_queue', order], ['dynamo_kv.queue_threshold', '0.05'],
      ];
      const native = runNativeBench(setArgs(pairs));
      const wasm = pr.runScenario('', overridesJson(pairs), null);
      assert.equal(wasm.ok, true, JSON.stringify(wasm.errors));
      assert.equal(wasm.resultsJson, native.json);
      const offPairs = pairs.map(([key, value]) => [key, key === 'dynamo_kv.router_queue' ? 'off' : value]);
      const off = JSON.parse(runNativeBench(setArgs(offPairs)).json);
      assert.notEqual(JSON.parse(native.json).results[0].mean_ttft_ms, off.results[0].mean_ttft_ms);
    }
  });

  // The table of docs/guide/traffic.md for each workload kind, and the kinds with decode on
  // (their outputs decode) and lagged KV events.
  for (const kind of ['sessions', 'agentic', 'gsp', 'shared_prefix', 'prefix_repetition', 'cumulative']) {
    for (const extra of [[], [['cluster.decode_ms_per_token', '20'], ['router.kv_event_lag_ms', '20']]]) {
      test(`workload.kind=${kind}, every policy${extra.length ? ', decode and lagged KV events' : ''}`, () => {
        const pairs = [['workload.kind', kind], ['cluster.cache_tokens', '32000'], ['policies', 'all'], ...extra];
        const native = runNativeBench(setArgs(pairs));
        const wasm = pr.runScenario('', overridesJson(pairs), null);
        assert.equal(wasm.ok, true, JSON.stringify(wasm.errors));
        assert.equal(wasm.resultsJson, native.json);
      });
    }
  }

  // The pool kinds' own draws: normal length spreads (Rng::normal, dmath::log)
  // and multi-turn sessions; KubeAI's pruning of long cumulative prompts.
  test('shared_prefix with spread lengths, multi-turn, and cumulative with pruning', () => {
    const cases = [
      [['workload.kind', 'shared_prefix'], ['workload.shared_prefix_system_prompt_len_std', '30'],
        ['workload.shared_prefix_question_len_std', '15.5'], ['workload.shared_prefix_output_len_std', '20'],
        ['workload.shared_prefix_multi_turn', 'on'], ['workload.requests', '700']],
      [['workload.kind', 'shared_prefix'], ['workload.shared_prefix_order', 'random'],
        ['workload.shared_prefix_question_len_std', '40'], ['workload.shared_prefix_question_len_max', '80']],
      [['workload.kind', 'cumulative'], ['workload.cumulative_max_prompt_tokens', '2500']],
    ];
    for (const extra of cases) {
      const pairs = [...extra, ['cluster.cache_tokens', '32000'], ['policies', 'all'], ['cluster.decode_ms_per_token', '20']];
      const native = runNativeBench(setArgs(pairs));
      const wasm = pr.runScenario('', overridesJson(pairs), null);
      assert.equal(wasm.ok, true, JSON.stringify(wasm.errors));
      assert.equal(wasm.resultsJson, native.json);
    }
  });

  test('overrides apply on top of a scenario document', () => {
    const file = scenarioFiles().find((f) => f.endsWith('cache-fits.json'));
    const pairs = [['workload.zipf_s', '1.5'], ['policies', 'affinity_balanced']];
    const native = runNativeBench(['--scenario', file, ...setArgs(pairs)]);
    const wasm = pr.runScenario(fs.readFileSync(file, 'utf8'), overridesJson(pairs), null);
    assert.equal(wasm.ok, true, JSON.stringify(wasm.errors));
    assert.equal(wasm.resultsJson, native.json);
  });
});

describe('validation agrees with the native command line', () => {
  test('canonical scenario equals --print-scenario', () => {
    const pairs = [['cluster.cache_tokens', '12345'], ['policies', 'least_loaded']];
    const native = runNative(BENCH, ['--print-scenario', ...setArgs(pairs)]);
    const wasm = pr.validateScenario('', overridesJson(pairs));
    assert.equal(wasm.ok, true);
    assert.deepEqual(JSON.parse(wasm.scenarioJson), JSON.parse(native));
  });

  test('a workload kind\'s limit gives the same field and message', () => {
    const pairs = [['workload.kind', 'agentic'], ['workload.requests', '10000000']];
    const native = runNativeBenchFailing(setArgs(pairs));
    assert.equal(native.status, 2);
    const wasm = pr.validateScenario('', overridesJson(pairs));
    assert.equal(wasm.ok, false);
    const error = wasm.errors.find((e) => e.field === 'workload.requests');
    assert.ok(error, JSON.stringify(wasm.errors));
    assert.match(error.message, /requests x the longest possible prompt \(5400 tokens/);
    assert.ok(native.stderr.includes(`  ${error.field}: ${error.message}\n`), native.stderr);
  });

  test('an invalid value gives the same field and message', () => {
    const pairs = [['cluster.replicas', '0']];
    const native = runNativeBenchFailing(setArgs(pairs));
    assert.equal(native.status, 2);
    const wasm = pr.validateScenario('', overridesJson(pairs));
    assert.equal(wasm.ok, false);
    assert.equal(wasm.errors.length, 1);
    const { field, message } = wasm.errors[0];
    assert.ok(native.stderr.includes(`  ${field}: ${message}\n`), native.stderr);
    assert.deepEqual(wasm.errors[0], { field: 'cluster.replicas', message: 'must be an integer in [1, 4096] (replicas); got 0' });
  });
});
