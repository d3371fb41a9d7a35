// Summarises callgrind profiles of simulate() (docs/performance.md).
//
//   node bench/callgrind_report.mjs [--requests N] LABEL=FILE.out ...
//
// For each profile: total instructions, instructions per request (when
// --requests is given), the share of the main components (inclusive: a
// component counts everything it calls) and the top functions by self cost,
// merged across the files their code was inlined from. Reads the output of
// `callgrind_annotate`, which must be on PATH (valgrind).
import { execFileSync } from 'node:child_process';

const args = process.argv.slice(2);
let requests = 0;
const profiles = [];
for (let i = 0; i < args.length; ++i) {
  if (args[i] === '--requests') requests = Number(args[++i]);
  else {
    const eq = args[i].indexOf('=');
    profiles.push({ label: args[i].slice(0, eq), file: args[i].slice(eq + 1) });
  }
}

// Function name without file, arguments, binary and clone suffixes.
function functionName(entry) {
  let s = entry.replace(/ \[[^\]]*\]$/, '');
  s = s.replace(/^[^:]*:/, '');
  s = s.replace(/\(anonymous namespace\)/g, '(anon)').replace(/\(below main\)/, 'below-main');
  const paren = s.search(/\((?!anon\))/);
  if (paren > 0) s = s.slice(0, paren);
  return s.replace(/ \[clone [^\]]*\]/g, '').trim();
}

function annotate(file, inclusive) {
  const text = execFileSync('callgrind_annotate', [`--inclusive=${inclusive ? 'yes' : 'no'}`, '--threshold=100', '--auto=no', file], {
    encoding: 'utf8',
    maxBuffer: 256 << 20,
  });
  const rows = [];
  let total = 0;
  for (const line of text.split('\n')) {
    const m = line.match(/^\s*([\d,]+) \(\s*[\d.]+%\)\s+(.*)$/);
    if (!m) continue;
    const ir = Number(m[1].replace(/,/g, ''));
    if (m[2].startsWith('PROGRAM TOTALS')) {
      total = ir;
      continue;
    }
    rows.push({ ir, name: functionName(m[2]) });
  }
  return { total, rows };
}

const components = [
  ['prompt materialisation (RequestTrace::materialize)', (n) => /::materialize$/.test(n)],
  ['routing: policy choose()', (n) => /::choose$/.test(n)],
  ['  of which RadixCache::match', (n) => n === 'prefixroute::RadixCache::match'],
  ['cache update: RadixCache::insert', (n) => n === 'prefixroute::RadixCache::insert'],
  ['  of which eviction (evict_until_within_budget)', (n) => /RadixCache::evict_until_within_budget$/.test(n)],
];

const pct = (x, total) => `${((100 * x) / total).toFixed(1)}%`;
const commas = (x) => Math.round(x).toLocaleString('en-US');

for (const { label, file } of profiles) {
  const self = annotate(file, false);
  const incl = annotate(file, true);
  const total = self.total;
  console.log(`\n#### ${label}\n`);
  console.log(`Instructions in simulate(): ${commas(total)}` +
    (requests ? ` (${commas(total / requests)} per request)` : '') + '.\n');
  console.log('| Component (inclusive) | Instructions | Share |');
  console.log('|---|---|---|');
  let covered = 0;
  for (const [name, test] of components) {
    // Inclusive cost of a function is listed once per file it spans; take the largest.
    const ir = Math.max(0, ...incl.rows.filter((r) => test(r.name)).map((r) => r.ir));
    if (!name.startsWith('  ')) covered += ir;
    console.log(`| ${name} | ${commas(ir)} | ${pct(ir, total)} |`);
  }
  console.log(`| simulator loop, queues, bookkeeping (the rest) | ${commas(total - covered)} | ${pct(total - covered, total)} |`);

  const merged = new Map();
  for (const r of self.rows) merged.set(r.name, (merged.get(r.name) || 0) + r.ir);
  const top = [...merged.entries()].sort((a, b) => b[1] - a[1]).slice(0, 8);
  console.log('\n| Top functions (self cost) | Instructions | Share |');
  console.log('|---|---|---|');
  for (const [name, ir] of top) console.log(`| \`${name}\` | ${commas(ir)} | ${pct(ir, total)} |`);
}
