// Are two results files the same results? Used by identical_results.sh.
//
//   node bench/same_results.mjs BEFORE.json AFTER.json
//
// Every part of the document must be byte-identical once serialised, except
// for what AFTER may add:
//   - scenario fields BEFORE has not (a field added since: the echo lists
//     every field, so a new one appears with its default). A field BEFORE has
//     must be in AFTER with the same value, in the same order.
//   - policies BEFORE has not run (a policy added to the catalogue since:
//     `--set policies=all` runs it too). A policy counts as added when AFTER's
//     `results` has a row for it and BEFORE's has none. Its rows are dropped
//     from AFTER's `results` and its name from AFTER's `scenario.policies`;
//     what remains must equal BEFORE's: every BEFORE row, byte-identical, in
//     BEFORE's order (so BEFORE's rows are compared with AFTER's rows of the
//     same policy, in order). A policy BEFORE ran that AFTER lacks, or whose
//     row moved relative to the others, is a difference.
//   - the top-level "recommended" (the policy the catalogue recommends), when
//     BEFORE has no such key; or another policy there when the environment
//     says the mark moved on purpose (RECOMMENDED_MOVED=1: `npm run grid`
//     moved it), named in the printed line.
//   - with replicates, pairs of replicates.not_distinguishable that name an
//     added policy (every other pair must be there, in BEFORE's order).
// Every other key of the document (workload, bounds, ...) must be equal.
// Exits 0 when the same, printing one line that names what AFTER added (if
// anything); 1 with the differences otherwise.
import fs from 'node:fs';

const [beforePath, afterPath] = process.argv.slice(2);
if (!beforePath || !afterPath) {
  console.error('usage: node bench/same_results.mjs BEFORE.json AFTER.json');
  process.exit(2);
}
const before = JSON.parse(fs.readFileSync(beforePath, 'utf8'));
const after = JSON.parse(fs.readFileSync(afterPath, 'utf8'));

// AFTER's scenario restricted to BEFORE's keys, in AFTER's order.
function restrict(shape, value) {
  if (typeof shape !== 'object' || shape === null || Array.isArray(shape)) return value;
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return value;
  const out = {};
  for (const key of Object.keys(value)) if (key in shape) out[key] = restrict(shape[key], value[key]);
  return out;
}

// The policies AFTER ran that BEFORE did not.
const policiesOf = (doc) => new Set(Array.isArray(doc.results) ? doc.results.map((row) => row?.policy) : []);
const beforePolicies = policiesOf(before);
const added = [...policiesOf(after)].filter((name) => !beforePolicies.has(name));
const isAdded = (name) => added.includes(name);

function comparable(key) {
  if (key === 'results' && Array.isArray(after.results))
    return after.results.filter((row) => !isAdded(row?.policy));
  if (key === 'replicates' && after.replicates && typeof after.replicates.not_distinguishable === 'object') {
    const pairs = {};
    for (const [metric, list] of Object.entries(after.replicates.not_distinguishable))
      pairs[metric] = Array.isArray(list) ? list.filter((pair) => !(Array.isArray(pair) && pair.some(isAdded))) : list;
    return { ...after.replicates, not_distinguishable: pairs };
  }
  if (key === 'scenario') {
    const scenario = restrict(before.scenario, after.scenario);
    if (scenario && Array.isArray(scenario.policies))
      return { ...scenario, policies: scenario.policies.filter((name) => !isAdded(name)) };
    return scenario;
  }
  return after[key];
}

const problems = [];
const keys = new Set([...Object.keys(before), ...Object.keys(after)]);
const addsRecommended = !('recommended' in before) && typeof after.recommended === 'string';
const movesRecommended = process.env.RECOMMENDED_MOVED === '1' && typeof before.recommended === 'string' &&
  typeof after.recommended === 'string' && before.recommended !== after.recommended;
if (addsRecommended || movesRecommended) keys.delete('recommended');
for (const key of keys) {
  const ta = JSON.stringify(before[key]);
  const tb = JSON.stringify(comparable(key));
  if (ta !== tb) {
    let i = 0;
    while (i < ta.length && i < tb.length && ta[i] === tb[i]) ++i;
    problems.push(`${key}: differs at character ${i}: before …${(ta ?? 'undefined').slice(Math.max(0, i - 40), i + 40)}… after …${(tb ?? 'undefined').slice(Math.max(0, i - 40), i + 40)}…`);
  }
}
if (problems.length) {
  console.log(problems.join('\n'));
  process.exit(1);
}
const notes = [];
if (added.length) notes.push(`AFTER adds policies: ${added.join(', ')}`);
if (addsRecommended) notes.push(`AFTER names the recommended policy (${after.recommended})`);
if (movesRecommended) notes.push(`AFTER recommends ${after.recommended} instead of ${before.recommended}`);
if (notes.length) console.log(notes.join('; '));
