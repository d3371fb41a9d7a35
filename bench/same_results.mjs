// Are two results files the same results? Used by identical_results.sh.
//
//   node bench/same_results.mjs BEFORE.json AFTER.json
//
// Every part of the document must be byte-identical once serialised, except
// that AFTER's scenario may hold fields BEFORE's has not (a field added since:
// the echo lists every field, so a new one appears with its default). A field
// BEFORE has must be in AFTER with the same value, in the same order; every
// other key of the document (workload, bounds, results, ...) must be equal.
// Exits 0 when the same, 1 with the first difference otherwise.
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

const problems = [];
const keys = new Set([...Object.keys(before), ...Object.keys(after)]);
for (const key of keys) {
  const a = before[key];
  const b = key === 'scenario' ? restrict(before.scenario, after.scenario) : after[key];
  const ta = JSON.stringify(a);
  const tb = JSON.stringify(b);
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
