// Published claims against simulated results: the metrics read off a results
// JSON and the comparisons of scenarios/published/claims.json.
//
// A claim names its policies ("arms": a published router and the catalogue
// policy standing in for it, with the settings of that policy that make it
// the published router, "set"), the published figures and the comparisons
// they imply. Arms that run one policy with different settings run apart
// (armRuns). Everything here is a pure function of the claim and its results
// JSON, so the same results always give the same verdicts.

/** Metric names a claim may use, each read off a stage or a whole run. */
export const METRICS = [
  'mean_ttft_s',
  'p50_ttft_s',
  'p90_ttft_s',
  'p99_ttft_s',
  'output_tokens_per_s',
  'input_tokens_per_s',
  'total_tokens_per_s',
  'hit_rate',
];

const THROUGHPUT = new Set(['output_tokens_per_s', 'input_tokens_per_s', 'total_tokens_per_s']);

/** A TTFT metric in seconds (mean_ttft_s, p50_ttft_s, ...) read from a row's or a stage's `..._ms` figure. */
const TTFT_SECONDS = /^(mean|p50|p90|p99)_ttft_s$/;
const ttftSeconds = (figures, name) => figures[name.replace(/_s$/, '_ms')] / 1000;

/** The metric `name` of one stage of a results row. */
export function stageMetric(stage, name) {
  if (TTFT_SECONDS.test(name)) return ttftSeconds(stage, name);
  switch (name) {
    case 'output_tokens_per_s':
      return stage.output_tokens_per_s;
    case 'input_tokens_per_s':
      return stage.input_tokens_per_s;
    case 'total_tokens_per_s':
      return stage.input_tokens_per_s + stage.output_tokens_per_s;
    case 'hit_rate':
      return stage.hit_rate;
    default:
      throw new Error(`unknown metric ${name}; allowed: ${METRICS.join(', ')}`);
  }
}

const stageSpan = (stage) => Math.max(0, stage.end_s - stage.start_s);

/**
 * The metric over a whole run. With stages: throughput is every stage's tokens
 * over their summed spans, the mean TTFT the completed-request-weighted mean
 * of the stage means, the hit rate weighted by the stages' input tokens; the
 * percentiles are the row's (every request, a warm-up included). Without
 * stages (one burst or one open run): the row's own figures.
 */
export function summaryMetric(row, name) {
  const stages = row.stages || [];
  if (stages.length > 0) {
    if (THROUGHPUT.has(name)) {
      let tokens = 0;
      let span = 0;
      for (const s of stages) {
        tokens += stageMetric(s, name) * stageSpan(s);
        span += stageSpan(s);
      }
      return span > 0 ? tokens / span : 0;
    }
    if (name === 'mean_ttft_s') {
      let sum = 0;
      let n = 0;
      for (const s of stages) {
        const done = s.requests - s.failed;
        sum += ttftSeconds(s, 'mean_ttft_s') * done;
        n += done;
      }
      return n > 0 ? sum / n : 0;
    }
    if (name === 'hit_rate') {
      let cached = 0;
      let input = 0;
      for (const s of stages) {
        const tokens = s.input_tokens_per_s * stageSpan(s);
        cached += s.hit_rate * tokens;
        input += tokens;
      }
      return input > 0 ? cached / input : row.hit_rate;
    }
  }
  if (TTFT_SECONDS.test(name)) return ttftSeconds(row, name);
  switch (name) {
    case 'hit_rate':
      return row.hit_rate;
    case 'output_tokens_per_s':
      return row.output_tokens / row.span_s;
    case 'input_tokens_per_s':
      return row.prompt_tokens / row.span_s;
    case 'total_tokens_per_s':
      return (row.prompt_tokens + row.output_tokens) / row.span_s;
    default:
      throw new Error(`unknown metric ${name}; allowed: ${METRICS.join(', ')}`);
  }
}

/** [[load, value], ...] of a row's stages, in ladder order. */
export function curve(row, name) {
  return (row.stages || []).map((s) => [s.load, stageMetric(s, name)]);
}

/** The metric at one scope: "summary", "peak" (max over the stages) or "stage" at load `at`. */
export function scopedMetric(row, name, scope, at) {
  if (scope === 'summary') return summaryMetric(row, name);
  if (scope === 'peak') {
    const c = curve(row, name);
    return c.length === 0 ? summaryMetric(row, name) : Math.max(...c.map((p) => p[1]));
  }
  if (scope === 'stage') {
    const s = (row.stages || []).find((st) => st.load === at);
    return s ? stageMetric(s, name) : null;
  }
  throw new Error(`unknown scope ${scope}; allowed: summary, peak, stage`);
}

/** Lowest load whose metric exceeds `threshold`; null when none does. */
export function saturationLoad(row, name, threshold) {
  for (const [load, v] of curve(row, name)) if (v > threshold) return load;
  return null;
}

/** Lowest load whose metric reaches `fraction` of the row's peak; null without stages. */
export function kneeLoad(row, name, fraction) {
  const c = curve(row, name);
  if (c.length === 0) return null;
  const peak = Math.max(...c.map((p) => p[1]));
  for (const [load, v] of c) if (v >= fraction * peak) return load;
  return null;
}

/** An arm's settings as `--set` overrides (`key=value`), in the claim's order. */
export function armSets(arm) {
  return Object.entries(arm.set || {}).map(([k, v]) => `${k}=${v}`);
}

/**
 * The runs a claim takes: one per distinct arm settings, each with the
 * overrides that run exactly its arms' policies with those settings (none
 * when every arm runs the scenario as written).
 */
export function armRuns(claim) {
  const runs = new Map();
  for (const arm of claim.arms) {
    const sets = armSets(arm);
    const key = JSON.stringify(sets);
    if (!runs.has(key)) runs.set(key, { arms: [], sets });
    runs.get(key).arms.push(arm);
  }
  const list = [...runs.values()];
  if (list.length === 1 && list[0].sets.length === 0) return [{ arms: list[0].arms, sets: [] }];
  return list.map((r) => ({ arms: r.arms, sets: [`policies=${[...new Set(r.arms.map((a) => a.policy))].join(',')}`, ...r.sets] }));
}

/**
 * The results row of each arm, by policy; throws naming a missing one.
 * `results`: one results JSON for every arm, or one per arm name (armRuns).
 */
export function rowsByArm(claim, results) {
  const rows = {};
  for (const arm of claim.arms) {
    const of = Array.isArray(results.results) ? results : results[arm.name];
    const row = of && of.results.find((r) => r.policy === arm.policy);
    if (!row) throw new Error(`${claim.id}: no results for policy ${arm.policy} (arm ${arm.name})`);
    rows[arm.name] = row;
  }
  return rows;
}

/** One comparison's verdict: { ok, published, simulated } (texts ready to print). */
export function evaluateComparison(cmp, rows, rules) {
  const value = (arm) => scopedMetric(rows[arm], cmp.metric, cmp.scope, cmp.at);
  switch (cmp.kind) {
    case 'order': {
      const sim = cmp.groups.map((g) => g.map((arm) => ({ arm, v: value(arm) })));
      const better = (a, b) => (cmp.better === 'lower' ? a < b : a > b);
      let ok = true;
      for (let i = 0; i + 1 < sim.length; ++i)
        for (const a of sim[i]) for (const b of sim[i + 1]) if (a.v === null || b.v === null || !better(a.v, b.v)) ok = false;
      const flat = sim.flat().filter((x) => x.v !== null);
      flat.sort((a, b) => (cmp.better === 'lower' ? a.v - b.v : b.v - a.v));
      return {
        ok,
        published: cmp.groups.map((g) => g.join(' ~ ')).join(', then '),
        simulated: flat.map((x) => `${x.arm} ${formatMetric(cmp.metric, x.v)}`).join(', '),
        simulatedValue: flat.map((x) => x.arm),
      };
    }
    case 'ratio': {
      const num = value(cmp.num);
      const den = value(cmp.den);
      const sim = num !== null && den !== null && den > 0 ? num / den : null;
      const band = rules.ratio_band;
      const ok = sim !== null && sim >= cmp.published / band && sim <= cmp.published * band;
      return { ok, published: `${fmtRatio(cmp.published)}`, simulated: sim === null ? 'n/a' : fmtRatio(sim), simulatedValue: sim };
    }
    case 'saturation':
    case 'knee': {
      const sim =
        cmp.kind === 'saturation'
          ? saturationLoad(rows[cmp.arm], cmp.metric, cmp.threshold)
          : kneeLoad(rows[cmp.arm], cmp.metric, rules.knee_fraction);
      let ok;
      if (cmp.published === null) ok = sim === null;
      else ok = sim !== null && Math.abs(sim - cmp.published) <= rules.saturation_band * cmp.published;
      const show = (v) => (v === null ? 'beyond the ladder' : String(v));
      return { ok, published: show(cmp.published), simulated: show(sim), simulatedValue: sim };
    }
    case 'value': {
      const sim = value(cmp.arm);
      const ok = sim !== null && Math.abs(sim - cmp.published) <= rules.hit_rate_band_points;
      return { ok, published: formatMetric(cmp.metric, cmp.published), simulated: formatMetric(cmp.metric, sim), simulatedValue: sim };
    }
    case 'spread': {
      const vs = cmp.arms.map(value);
      const sim = Math.max(...vs) / Math.min(...vs);
      return {
        ok: sim <= cmp.bound,
        published: `${fmtRatio(cmp.published)} (at most ${fmtRatio(cmp.bound)})`,
        simulated: fmtRatio(sim),
        simulatedValue: sim,
      };
    }
    default:
      throw new Error(`unknown comparison kind ${cmp.kind}; allowed: order, ratio, saturation, knee, value, spread`);
  }
}

/** A comparison in words, e.g. "ratio of p90 TTFT (summary): random / precise". */
export function describeComparison(cmp, loadUnit) {
  const where =
    cmp.scope === 'stage' ? ` at ${cmp.at} ${loadUnit}` : cmp.scope === 'peak' ? ' (peak over the ladder)' : cmp.scope === 'summary' ? ' (whole run)' : '';
  const m = METRIC_LABELS[cmp.metric] || cmp.metric;
  switch (cmp.kind) {
    case 'order':
      return `order of ${m}${where}`;
    case 'ratio':
      return `${m}${where}: ${cmp.num} / ${cmp.den}`;
    case 'saturation':
      return `saturation of ${cmp.arm}: first load with ${m} > ${cmp.threshold}`;
    case 'knee':
      return `knee of ${cmp.arm}: first load with ${m} >= ${'90 %'} of its peak`;
    case 'value':
      return `${m}${where} of ${cmp.arm}`;
    case 'spread':
      return `spread of ${m}${where}: largest / smallest`;
    default:
      return cmp.kind;
  }
}

/** The comparison's category in the overview: order, ratio, load (saturation, knee), value. */
export function category(cmp) {
  if (cmp.kind === 'saturation' || cmp.kind === 'knee') return 'load';
  if (cmp.kind === 'spread') return 'ratio';
  return cmp.kind;
}

export const METRIC_LABELS = {
  mean_ttft_s: 'mean TTFT',
  p50_ttft_s: 'median TTFT',
  p90_ttft_s: 'p90 TTFT',
  p99_ttft_s: 'p99 TTFT',
  output_tokens_per_s: 'output tokens/s',
  input_tokens_per_s: 'input tokens/s',
  total_tokens_per_s: 'total tokens/s',
  hit_rate: 'hit rate',
  peak_output_tokens_per_s: 'peak output tokens/s',
  knee_load: 'knee load',
  input_tokens_per_s_at_knee: 'input tokens/s at the knee',
  output_tokens_per_s_at_knee: 'output tokens/s at the knee',
};

function fmtRatio(r) {
  if (r >= 100) return `${r.toFixed(0)}x`;
  if (r >= 10) return `${r.toFixed(1)}x`;
  return `${r.toFixed(2)}x`;
}

/** A metric value as printed: seconds, tokens/s, percent. */
export function formatMetric(name, v) {
  if (v === null || v === undefined || Number.isNaN(v)) return 'n/a';
  if (name.endsWith('_s') && name.includes('ttft')) return v >= 10 ? `${v.toFixed(1)} s` : `${v.toFixed(3)} s`;
  if (name === 'hit_rate') return `${(v * 100).toFixed(1)} %`;
  if (name === 'knee_load') return String(v);
  return Math.round(v).toLocaleString('en-US');
}

/** Every comparison of a claim evaluated on its rows. */
export function evaluateClaim(claim, results, rules) {
  const rows = rowsByArm(claim, results);
  const verdicts = claim.comparisons.map((cmp) => ({ cmp, ...evaluateComparison(cmp, rows, rules) }));
  return { rows, verdicts };
}

/**
 * Checks a claims document's shape against its scenarios' policies: no two
 * arms run one policy with the same settings, an arm's settings are its
 * policy's own fields, every comparison names known arms and metrics.
 * Returns a list of problems (empty when sound).
 */
export function checkClaims(doc) {
  const problems = [];
  const kinds = new Set(['order', 'ratio', 'saturation', 'knee', 'value', 'spread']);
  for (const claim of doc.claims) {
    const arms = new Set(claim.arms.map((a) => a.name));
    const configured = new Set(claim.arms.map((a) => `${a.policy} ${JSON.stringify(armSets(a))}`));
    if (configured.size !== claim.arms.length) problems.push(`${claim.id}: two arms share a policy and its settings`);
    for (const arm of claim.arms)
      for (const key of Object.keys(arm.set || {}))
        if (!key.startsWith(`${arm.policy}.`)) problems.push(`${claim.id}: arm ${arm.name} sets ${key}, not a field of ${arm.policy}`);
    for (const cmp of claim.comparisons) {
      if (!kinds.has(cmp.kind)) problems.push(`${claim.id}: unknown comparison kind ${cmp.kind}`);
      if (!METRICS.includes(cmp.metric)) problems.push(`${claim.id}: unknown metric ${cmp.metric}`);
      const named = [...(cmp.groups || []).flat(), cmp.num, cmp.den, cmp.arm, ...(cmp.arms || [])].filter(Boolean);
      for (const n of named) if (!arms.has(n)) problems.push(`${claim.id}: comparison names unknown arm ${n}`);
    }
  }
  return problems;
}
