// The "Load stages" view's data (web/src/results/stages.ts) and the Benchmark
// client's fields in the Scenario panel and the link, against the real
// WebAssembly core: the series and rows are the results JSON's stage figures
// as the core wrote them, the offered load is a concurrency for a closed
// client and a rate for an open one, results without stages have no view,
// client.stages is a text field the link keeps, and a bad ladder gets the
// core's message naming the field.
import { beforeAll, describe, expect, it } from 'vitest';
import { parseResults, type Results } from '../../web/src/results/results';
import { formatStageFigure } from '../../web/src/results/stage-table';
import {
  hasStages,
  offeredLoad,
  STAGE_COLUMNS,
  stageFigure,
  stageRows,
  stageSeries,
  statById,
  THROUGHPUT_STATS,
  TTFT_STATS,
} from '../../web/src/results/stages';
import { defaultPageState, pageStateFromUrl, pageStateToUrl } from '../../web/src/state/page-state';
import { PRESETS, presetOverrides } from '../../web/src/state/presets';
import { type FieldInfo, isDefault, nonDefaultOverrides, type Pair, scenarioValues } from '../../web/src/state/schema';
import { clientFieldUnused } from '../../web/src/ui/client-fields';
import type { PrefixrouteModule } from '../../web/src/worker/prefixroute-module';
import { loadCore, loadFields } from './core';

let core: PrefixrouteModule;
let fields: FieldInfo[];

beforeAll(async () => {
  core = await loadCore();
  fields = await loadFields();
});

/** Runs overrides on the core; the results and the JSON document as parsed independently of the page's types. */
function run(overrides: Pair[]): { results: Results; doc: { results: { policy: string; stages?: Record<string, number | null>[] }[] } } {
  const r = core.runScenario('', JSON.stringify(overrides), null);
  if (!r.ok) throw new Error(JSON.stringify(r.errors));
  return { results: parseResults(r.resultsJson), doc: JSON.parse(r.resultsJson) };
}

const ladder = (): Pair[] => presetOverrides(PRESETS.find((p) => p.id === 'load-ladder')!.document);
/** Two policies keep the test quick; the mapping does not depend on which. */
const TWO: Pair = ['policies', 'round_robin,affinity'];

describe('load stages: the view’s data is the results JSON’s', () => {
  let closed: ReturnType<typeof run>;
  beforeAll(() => {
    closed = run([...ladder(), TWO]);
  });

  it('the preset is a closed ladder: six stages per policy (the warm-up left out), loads as a concurrency', () => {
    expect(hasStages(closed.results)).toBe(true);
    const load = offeredLoad(closed.results);
    expect(load.kind).toBe('concurrency');
    expect(load.axis).toMatch(/concurrency/);
    for (const row of closed.doc.results) expect(row.stages!.map((s) => s.load)).toEqual([1, 2, 4, 8, 16, 32]);
  });

  it('each TTFT statistic and throughput measure is, per policy and stage, the JSON’s figure at the stage’s load', () => {
    for (const stat of [...TTFT_STATS, ...THROUGHPUT_STATS]) {
      const series = stageSeries(closed.results, stat);
      expect(series.map((s) => s.policy)).toEqual(['round_robin', 'affinity']);
      series.forEach((s, i) => {
        const stages = closed.doc.results[i].stages!;
        expect(s.points).toEqual(stages.map((st, k) => ({ stage: k + 1, x: st.load, y: st[stat.key] })));
      });
    }
    // The figures differ between the policies: a mapping that mixed them up would show.
    const p90 = stageSeries(closed.results, statById(TTFT_STATS, 'p90'));
    expect(p90[0].points.map((p) => p.y)).not.toEqual(p90[1].points.map((p) => p.y));
  });

  it('p90 is the default TTFT statistic, completed requests/s the default throughput; an unknown id falls back to them', () => {
    expect(TTFT_STATS[0].key).toBe('p90_ttft_ms');
    expect(TTFT_STATS.map((s) => s.id).sort()).toEqual(['mean', 'p50', 'p90', 'p99']);
    expect(THROUGHPUT_STATS[0].key).toBe('completed_per_s');
    expect(THROUGHPUT_STATS.some((s) => s.key === 'output_tokens_per_s')).toBe(true);
    expect(statById(TTFT_STATS, 'p99').key).toBe('p99_ttft_ms');
    expect(statById(TTFT_STATS, 'bogus')).toBe(TTFT_STATS[0]);
  });

  it('the table has a row per policy and stage, in order, and a column for every figure of a stage', () => {
    const rows = stageRows(closed.results);
    expect(rows.map((r) => `${r.policy}:${r.stage}`)).toEqual(
      ['round_robin', 'affinity'].flatMap((p) => [1, 2, 3, 4, 5, 6].map((k) => `${p}:${k}`)),
    );
    // Every figure the core writes per stage, but the stage's window (load is its own column).
    const keys = Object.keys(closed.doc.results[0].stages![0]).filter((k) => !['load', 'duration_s', 'start_s', 'end_s'].includes(k));
    expect(STAGE_COLUMNS.map((c) => c.key).sort()).toEqual(keys.sort());
    for (const row of rows) {
      const json = closed.doc.results.find((r) => r.policy === row.policy)!.stages![row.stage - 1];
      for (const c of STAGE_COLUMNS) expect(stageFigure(row, c)).toEqual(json[c.key]);
    }
  });

  it('a figure the engine has none of (TPOT without decode) is null and shown as a dash', () => {
    const row = stageRows(closed.results)[0];
    const tpot = STAGE_COLUMNS.find((c) => c.key === 'mean_tpot_ms')!;
    expect(stageFigure(row, tpot)).toBeNull();
    expect(formatStageFigure(tpot, null)).toBe('—');
    const hit = STAGE_COLUMNS.find((c) => c.key === 'hit_rate')!;
    expect(formatStageFigure(hit, 0.2439)).toBe('24.4%');
  });

  it('an open-loop ladder’s load is a send rate', () => {
    const open = run([['workload.requests', '400'], ['client.kind', 'constant'], ['client.stages', '20x2,40x3'], TWO]);
    expect(offeredLoad(open.results).kind).toBe('rate');
    expect(offeredLoad(open.results).axis).toMatch(/requests\/s/);
    expect(stageSeries(open.results, TTFT_STATS[0])[0].points.map((p) => p.x)).toEqual([20, 40]);
  });

  it('results without stages have no stage view', () => {
    expect(hasStages(run([['workload.requests', '200'], TWO]).results)).toBe(false);
    expect(hasStages(run([['workload.requests', '200'], ['client.kind', 'closed'], ['client.concurrency', '4'], TWO]).results)).toBe(false);
  });
});

describe('the benchmark client’s fields', () => {
  it('every client.* field of the schema is a page field, the stages and warm-up as free texts', () => {
    const client = fields.filter((f) => f.group === 'client');
    expect(client.map((f) => f.key)).toEqual([
      'client.kind', 'client.rate_per_s', 'client.concurrency', 'client.think_s', 'client.timeout_s',
      'client.stages', 'client.warmup', 'client.stage_interval_s',
    ]);
    const stages = client.find((f) => f.key === 'client.stages')!;
    expect(stages.kind).toBe('text');
    expect(stages.label).toBe('Stages');
    expect(stages.description).toMatch(/LOADxSECONDS/);
    expect(isDefault(stages, '')).toBe(true);
    expect(isDefault(stages, '1x10')).toBe(false);
    expect(client.find((f) => f.key === 'client.kind')!.options).toEqual(['poisson', 'constant', 'burst', 'closed']);
  });

  it('the link keeps the preset’s client settings, and reading them back gives the same scenario', () => {
    const first = core.validateScenario('{}', JSON.stringify(ladder()));
    expect(first.ok).toBe(true);
    const overrides = nonDefaultOverrides(scenarioValues(first.ok ? first.scenarioJson : '', fields), fields);
    expect(overrides).toContainEqual(['client.stages', '1x10,2x10,4x10,8x10,16x10,32x10']);
    expect(overrides).toContainEqual(['client.warmup', '4x5']);
    const url = pageStateToUrl({ ...defaultPageState(), overrides });
    expect(url).toContain('client.stages=1x10,2x10,4x10,8x10,16x10,32x10');
    const back = pageStateFromUrl(url, fields);
    expect(back.notices).toEqual([]);
    expect(back.state.overrides).toEqual(overrides);
    const again = core.validateScenario('{}', JSON.stringify(back.state.overrides));
    expect(again.ok && first.ok && again.scenarioJson === first.scenarioJson).toBe(true);
  });

  it('a bad ladder or a field the client kind does not read gets the core’s message naming the field', () => {
    const bad = core.validateScenario('{}', JSON.stringify([['client.kind', 'closed'], ['client.stages', '4x']]));
    expect(bad.ok).toBe(false);
    expect(bad.errors.map((e) => e.field)).toContain('client.stages');
    const misfit = core.validateScenario('{}', JSON.stringify([['client.concurrency', '8']]));
    expect(misfit.errors).toEqual([expect.objectContaining({ field: 'client.concurrency', message: expect.stringMatching(/closed client/) })]);
  });

  it('the panel greys out what the client kind does not read, and says why, from the schema’s x-client-kinds and x-client-needs', () => {
    const values = (pairs: Pair[]) => new Map<string, string>(pairs);
    const field = (key: string) => fields.find((f) => f.key === key)!;
    const unused = (key: string, pairs: Pair[]) => clientFieldUnused(field(key), values(pairs), new Map(fields.map((f) => [f.key, f.label])));
    expect(field('client.concurrency').clientKinds).toEqual(['closed']);
    expect(field('client.stage_interval_s').clientNeeds).toEqual(['client.stages', 'client.warmup']);
    expect(field('client.timeout_s').clientKinds).toBeUndefined();
    const poisson: Pair[] = [['client.kind', 'poisson'], ['client.stages', '']];
    expect(unused('client.concurrency', poisson)).toMatch(/closed client/);
    expect(unused('client.think_s', poisson)).toMatch(/closed client/);
    expect(unused('client.rate_per_s', poisson)).toBeNull();
    expect(unused('client.stage_interval_s', poisson)).toBe('Read only with stages (Stages or Warm-up stage given).');
    expect(unused('client.stage_interval_s', [['client.kind', 'poisson'], ['client.warmup', '5x2']])).toBeNull();
    const closed: Pair[] = [['client.kind', 'closed'], ['client.stages', '1x10']];
    for (const key of ['client.concurrency', 'client.think_s', 'client.rate_per_s', 'client.stages', 'client.warmup', 'client.stage_interval_s', 'client.timeout_s']) {
      expect(unused(key, closed), key).toBeNull();
    }
    const burst: Pair[] = [['client.kind', 'burst']];
    for (const key of ['client.rate_per_s', 'client.stages', 'client.warmup', 'client.concurrency']) expect(unused(key, burst), key).not.toBeNull();
    expect(unused('client.rate_per_s', burst)).toBe('Not read by a burst client: read by a poisson, constant or closed client only.');
    expect(unused('client.timeout_s', burst)).toBeNull();
  });

  it('each field the panel says a kind does not read, set, is refused by the core for that kind (the panel agrees with the core)', () => {
    const sample: Record<string, string> = {
      'client.rate_per_s': '5', 'client.concurrency': '4', 'client.think_s': '1', 'client.stages': '2x3', 'client.warmup': '2x1', 'client.stage_interval_s': '1',
    };
    // Each kind's smallest valid client, so that only the field tried can be wrong.
    const base: Record<string, Pair[]> = { poisson: [], constant: [['client.rate_per_s', '5']], burst: [], closed: [['client.concurrency', '2']] };
    let refused = 0;
    for (const [kind, pairs] of Object.entries(base)) {
      expect(core.validateScenario('{}', JSON.stringify([['client.kind', kind], ...pairs])).ok, kind).toBe(true);
      for (const [key, value] of Object.entries(sample)) {
        const unused = clientFieldUnused(fields.find((f) => f.key === key)!, new Map([['client.kind', kind], ...pairs]));
        if (unused === null) continue;
        const r = core.validateScenario('{}', JSON.stringify([['client.kind', kind], ...pairs, [key, value]]));
        expect(r.ok, `${kind} ${key}`).toBe(false);
        expect(r.errors.some((e) => e.field === key || e.message.includes(key)), `${kind} ${key}: ${JSON.stringify(r.errors)}`).toBe(true);
        refused++;
      }
    }
    expect(refused).toBeGreaterThanOrEqual(10);
  });
});
