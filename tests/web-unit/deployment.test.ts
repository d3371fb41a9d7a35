// The Scenario panel's deployment and workload-kind logic, on the real core:
// choice and derivable fields read from the schema, the fields each workload
// kind shows, the "what this means" line from the core's hardware summary
// (which value is in force and why), the decode columns of the results table,
// the shipped presets, and the trace format named as the core read it.
import { describe, expect, it } from 'vitest';
import { DEPLOYMENT_KEYS, deploymentLine, formatKiB, readByKind, summaryOf } from '../../web/src/ui/deployment';
import { PRESETS, presetOverrides } from '../../web/src/state/presets';
import { parseResults } from '../../web/src/results/results';
import { isDefault, isPageField, nonDefaultOverrides, scenarioValues } from '../../web/src/state/schema';
import { columnsFor } from '../../web/src/results/table-columns';
import { decodeUrlState } from '../../web/src/state/url-state';
import { formatText, replayedText, type TraceSummary } from '../../web/src/trace/trace-summary';
import { changesDeployment, pickForModel } from '../../web/src/page/model-pick';
import { loadCore, loadFields } from './core';

async function run(overrides: [string, string][]) {
  const core = await loadCore();
  const r = core.runScenario('{}', JSON.stringify(overrides), null);
  if (!r.ok) throw new Error(JSON.stringify(r.errors));
  return parseResults(r.resultsJson);
}

describe('choice and derivable fields from the schema', () => {
  it('the deployment pickers and the workload kind are choice fields listing the core’s values', async () => {
    const fields = (await loadFields()).filter(isPageField);
    for (const key of DEPLOYMENT_KEYS) expect(fields.map((f) => f.key), key).toContain(key);
    const model = fields.find((f) => f.key === 'hardware.model')!;
    expect(model.kind).toBe('choice');
    expect(model.options).toContain('llama-3.1-8b');
    expect(model.defaultText).toBe('none');
    const kind = fields.find((f) => f.key === 'workload.kind')!;
    expect(kind.options).toEqual(['tenants', 'sessions', 'agentic', 'gsp', 'shared_prefix', 'prefix_repetition', 'cumulative']);
    expect(fields.find((f) => f.key === 'cluster.engine')!.options).toEqual(['fifo', 'batched']);
  });

  it('a derived field reads as "" (not its default) and "" is its default; a given value is kept', async () => {
    const core = await loadCore();
    const fields = (await loadFields()).filter(isPageField);
    const cache = fields.find((f) => f.key === 'cluster.cache_tokens')!;
    expect(cache.derived).toBe(true);
    const v = core.validateScenario('{}', JSON.stringify([['hardware.model', 'llama-3.1-8b']]));
    if (!v.ok) throw new Error('invalid');
    const values = scenarioValues(v.scenarioJson, fields);
    expect(values.get('cluster.cache_tokens')).toBe('');
    expect(isDefault(cache, '')).toBe(true);
    // The link carries the model only: the derived fields stay derived when it is opened.
    expect(nonDefaultOverrides(values, fields)).toEqual([['hardware.model', 'llama-3.1-8b']]);
    const given = core.validateScenario('{}', JSON.stringify([['hardware.model', 'llama-3.1-8b'], ['cluster.cache_tokens', '9000']]));
    if (!given.ok) throw new Error('invalid');
    expect(scenarioValues(given.scenarioJson, fields).get('cluster.cache_tokens')).toBe('9000');
    // A field that is not derivable: "" is no value at all.
    expect(isDefault(fields.find((f) => f.key === 'cluster.replicas')!, '')).toBe(false);
  });

  it('a link’s choice value must be one of the schema’s; a good one travels as it is', async () => {
    const fields = (await loadFields()).filter(isPageField);
    const bad = decodeUrlState('?v=1&hardware.model=gpt-5&cluster.engine=batched', fields);
    expect(bad.overrides).toEqual([['cluster.engine', 'batched']]);
    expect(bad.messages).toEqual([{ key: 'hardware.model', text: expect.stringMatching(/^Link value "gpt-5" is not one of none, llama-3\.1-8b, .*; the default is used\.$/) }]);
  });

  it('the trace slicing fields and an openai log’s key choices are page fields; the trace’s other settings are not', async () => {
    const shown = (await loadFields()).filter(isPageField).map((f) => f.key).filter((k) => k.startsWith('trace.'));
    expect(shown.sort()).toEqual(['trace.end_s', 'trace.limit', 'trace.prompt_field', 'trace.session_field', 'trace.start_s', 'trace.time_field', 'trace.time_scale']);
  });
});

describe('workload kinds', () => {
  it('each kind shows its own fields (the schema’s x-kinds), and every kind shows the kind picker', async () => {
    const workload = (await loadFields()).filter((f) => f.group === 'workload');
    const shown = (kind: string) => workload.filter((f) => readByKind(f, kind)).map((f) => f.key);
    expect(shown('gsp')).toContain('workload.gsp_num_groups');
    expect(shown('gsp')).not.toContain('workload.tenants');
    expect(shown('tenants')).not.toContain('workload.gsp_num_groups');
    expect(shown('sessions')).toContain('workload.think_s_mean');
    expect(shown('sessions')).not.toContain('workload.calls_per_turn');
    expect(shown('agentic')).toContain('workload.calls_per_turn');
    expect(shown('shared_prefix')).toContain('workload.shared_prefix_question_len_std');
    expect(shown('shared_prefix')).not.toContain('workload.tenants');
    expect(shown('prefix_repetition')).toContain('workload.requests');
    expect(shown('prefix_repetition')).not.toContain('workload.shared_prefix_num_groups');
    expect(shown('cumulative')).toContain('workload.turns_mean');
    expect(shown('cumulative')).not.toContain('workload.think_s_mean');
    for (const kind of ['tenants', 'sessions', 'agentic', 'gsp', 'shared_prefix', 'prefix_repetition', 'cumulative'])
      expect(shown(kind)).toContain('workload.kind');
  });

  it('the shipped presets include a scenario of every workload kind, each valid for the core', async () => {
    const core = await loadCore();
    const kinds = new Map<string, string>();
    for (const p of PRESETS) {
      const overrides = presetOverrides(p.document);
      const v = core.validateScenario('{}', JSON.stringify(overrides));
      expect(v.ok, `${p.id}: ${JSON.stringify(v.errors)}`).toBe(true);
      kinds.set(p.id, new Map(overrides).get('workload.kind') ?? 'tenants');
    }
    expect(kinds.get('chat-sessions')).toBe('sessions');
    expect(kinds.get('agentic')).toBe('agentic');
    expect(kinds.get('gsp')).toBe('gsp');
    expect(kinds.get('shared-prefix')).toBe('shared_prefix');
    expect(kinds.get('prefix-repetition')).toBe('prefix_repetition');
    expect(kinds.get('cumulative')).toBe('cumulative');
  });
});

describe('the “what this means” line', () => {
  it('names the model and GPU and the core’s figures, each with its source', async () => {
    const results = await run([['hardware.model', 'llama-3.1-8b'], ['hardware.gpu', 'h100'], ['workload.requests', '20'], ['policies', 'round_robin']]);
    const summary = summaryOf(results)!;
    expect(summary).not.toBeNull();
    const cache = summary.fields.find((f) => f.key === 'cluster.cache_tokens')!;
    const line = deploymentLine(summary, new Map());
    // Llama-3.1-8B's KV: 2 x 32 layers x 8 KV heads x 128 x 2 B = 128 KiB a token.
    expect(line).toContain('128 KiB of KV per token');
    expect(line).toContain(`${cache.in_force.toLocaleString('en-US')} cache tokens per replica (derived)`);
    expect(line).toMatch(/^Llama-3\.1-8B on 1 × H100/);
    expect(line).toMatch(/prefill [\d,]+ tokens\/s \(derived\)/);
  });

  it('a raw field given beside a model is in force, and the line says what the hardware would derive', async () => {
    const results = await run([['hardware.model', 'llama-3.1-8b'], ['cluster.cache_tokens', '50000'], ['workload.requests', '20'], ['policies', 'round_robin']]);
    const summary = summaryOf(results)!;
    const derived = summary.fields.find((f) => f.key === 'cluster.cache_tokens')!.derived!;
    expect(deploymentLine(summary, new Map())).toContain(`50,000 cache tokens per replica (given; derived would be ${derived.toLocaleString('en-US')})`);
  });

  it('without a model the raw settings are in force', async () => {
    const results = await run([['workload.requests', '20'], ['policies', 'round_robin']]);
    expect(summaryOf(results)).toBeNull();
    const values = new Map([['cluster.cache_tokens', '4000'], ['cluster.prefill_tokens_per_s', '11000']]);
    expect(deploymentLine(null, values)).toBe('No model chosen: the raw settings are in force (4,000 cache tokens per replica, prefill 11,000 tokens/s). Pick a model and GPU to derive them.');
  });

  it('formats KV sizes in KiB', () => {
    expect(formatKiB(131072)).toBe('128 KiB');
    expect(formatKiB(327680)).toBe('320 KiB');
    expect(formatKiB(1536)).toBe('1.50 KiB');
  });
});

describe('decode columns', () => {
  it('TPOT and output throughput columns appear with the batched engine, not with the default engine', async () => {
    const base: [string, string][] = [['workload.requests', '40'], ['policies', 'round_robin,affinity'], ['workload.output_tokens_max', '20']];
    const fifo = await run(base);
    expect(columnsFor(fifo.results).map((c) => c.id)).not.toContain('mean_tpot_ms');
    const batched = await run([...base, ['hardware.model', 'llama-3.1-8b'], ['cluster.engine', 'batched']]);
    const ids = columnsFor(batched.results).map((c) => c.id);
    expect(ids).toEqual(expect.arrayContaining(['mean_tpot_ms', 'p99_tpot_ms', 'output_tokens_per_s']));
    const tpot = columnsFor(batched.results).find((c) => c.id === 'mean_tpot_ms')!;
    expect(tpot.value(batched.results[0])).toBe(batched.results[0].mean_tpot_ms);
  });
});

describe('the trace format', () => {
  const summary = (format: string): TraceSummary => ({
    name: 't.jsonl', bytes: 300, lines: 1, requests: 1, skippedLines: 0, format, contentHash: '', problems: [], unlistedProblems: 0, summaryJson: '',
  });

  it('is named as the core reports it, in the drop zone and the status', () => {
    expect(formatText(summary('bailian'))).toBe('t.jsonl: read as bailian format.');
    expect(replayedText(summary('mooncake'))).toBe('Replayed t.jsonl (mooncake format): 1 request from 1 line (300 B).');
    expect(formatText(summary('auto'))).toBe('');
  });

  it('the core reports the format it told from the first line', async () => {
    const core = await loadCore();
    const bailian = '{"chat_id": 1, "parent_chat_id": -1, "timestamp": 0.5, "input_length": 20, "output_length": 3, "type": "text", "turn": 1, "hash_ids": [1, 2]}\n';
    const mooncake = '{"timestamp": 0, "input_length": 600, "output_length": 3, "hash_ids": [1, 2]}\n';
    for (const [text, format] of [[bailian, 'bailian'], [mooncake, 'mooncake']]) {
      const loader = new core.TraceLoader('t.jsonl', '{}', '');
      loader.feed(text);
      const r = loader.finish();
      loader.delete();
      expect(r.ok, JSON.stringify(r.problems)).toBe(true);
      expect(r.format).toBe(format);
    }
  });
});

describe('picking a model: the core chooses TP, the page sets it unless the reader did', () => {
  const pickOf = async (overrides: [string, string][]) => {
    const r = (await loadCore()).smallestTp('{}', JSON.stringify(overrides));
    if (!r.ok) throw new Error(JSON.stringify(r.errors));
    return { tp: r.tp, minFitTp: r.minFitTp, holdsContext: r.holdsContext, reason: r.reason };
  };
  const none = new Map([['hardware.model', 'none'], ['hardware.gpu', 'h100'], ['hardware.tp', '1'], ['cluster.engine', 'fifo']]);
  const with70b = (tp: string, engine = 'fifo') => new Map([...none, ['hardware.model', 'llama-3.1-70b'], ['hardware.tp', tp], ['cluster.engine', engine]]);

  it('the module answers with the core’s choice even where the scenario’s own TP is refused', async () => {
    const core = await loadCore();
    expect(core.validateScenario('{}', JSON.stringify([['hardware.model', 'llama-3.1-70b']])).ok).toBe(false);
    const pick = await pickOf([['hardware.model', 'llama-3.1-70b'], ['hardware.tp', '1']]);
    expect(pick.tp).toBe(4);
    expect(pick.minFitTp).toBe(2);
    expect(pick.reason).toMatch(/^TP 4: the smallest that holds Llama-3\.1-70B's 141\.11 GB of weights with room for KV on H100-SXM 80GB/);
    const noModel = (await loadCore()).smallestTp('{}', '[]');
    expect(noModel.ok).toBe(false);
    if (!noModel.ok) expect(noModel.errors[0].field).toBe('hardware.model');
    const badGpu = (await loadCore()).smallestTp('{}', JSON.stringify([['hardware.model', 'llama-3.1-8b'], ['hardware.gpu', 'tpu']]));
    expect(badGpu.ok).toBe(false);
  });

  it('a default TP and engine take the core’s TP and batched, each with its reason', async () => {
    const values = with70b('1');
    const reasons = pickForModel(values, none, await pickOf([['hardware.model', 'llama-3.1-70b']]), new Set());
    expect(values.get('hardware.tp')).toBe('4');
    expect(values.get('cluster.engine')).toBe('batched');
    expect(reasons.map((r) => [r.key, r.value])).toEqual([['hardware.tp', '4'], ['cluster.engine', 'batched']]);
    expect(reasons[1].text).toBe('Engine: batched, so TPOT and throughput are modelled (a model decodes; fifo ends each request at its first token).');
  });

  it('values the reader set stay, with a note; a TP the weights cannot use changes, saying so', async () => {
    const pick = await pickOf([['hardware.model', 'llama-3.1-70b']]);
    const kept = with70b('2');
    const keptReasons = pickForModel(kept, none, pick, new Set(['hardware.tp', 'cluster.engine']));
    expect(kept.get('hardware.tp')).toBe('2');
    expect(kept.get('cluster.engine')).toBe('fifo');
    expect(keptReasons[0].text).toMatch(/^Kept at 2, as set\. The page would choose TP 4: /);
    expect(keptReasons[1].text).toMatch(/^Kept at fifo, as set: TPOT and throughput are not modelled/);
    const refused = with70b('1');
    const refusedReasons = pickForModel(refused, none, pick, new Set(['hardware.tp']));
    expect(refused.get('hardware.tp')).toBe('4');
    expect(refusedReasons[0].text).toMatch(/^Changed from 1, which was set: the weights do not fit at TP 1\. TP 4: /);
    const larger = with70b('8');
    expect(pickForModel(larger, none, pick, new Set(['hardware.tp']))[0].text).toMatch(/^Kept at 8, as set\. The page would choose TP 4: /);
    expect(larger.get('hardware.tp')).toBe('8');
    const same = with70b('4');
    expect(pickForModel(same, none, pick, new Set(['hardware.tp'])).filter((r) => r.key === 'hardware.tp')).toEqual([]);
  });

  it('a GPU change asks again; a model that no TP holds leaves TP and says why', async () => {
    const shown = with70b('4', 'batched');
    const onH200 = new Map([...shown, ['hardware.gpu', 'h200']]);
    expect(changesDeployment(onH200, shown)).toBe(true);
    expect(changesDeployment(shown, shown)).toBe(false);
    expect(changesDeployment(none, with70b('4'))).toBe(false);
    const reasons = pickForModel(onH200, shown, await pickOf([['hardware.model', 'llama-3.1-70b'], ['hardware.gpu', 'h200']]), new Set());
    expect(onH200.get('hardware.tp')).toBe('2');
    expect(reasons.map((r) => r.key)).toEqual(['hardware.tp']); // the engine was no one's to change
    const deepseek = new Map([...none, ['hardware.model', 'deepseek-v3']]);
    const noFit = pickForModel(deepseek, none, await pickOf([['hardware.model', 'deepseek-v3']]), new Set());
    expect(deepseek.get('hardware.tp')).toBe('1');
    expect(noFit[0].text).toMatch(/^no TP up to 8 holds DeepSeek-V3's/);
  });
});
