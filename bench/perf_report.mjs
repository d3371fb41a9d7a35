// Time shares inside simulate() from a sampling profile (docs/performance.md).
//
//   perf script -i FILE.data -F ip,sym | node bench/perf_report.mjs LABEL [ROOT]
//
// The profile must be recorded with call graphs (perf record -e cpu-clock
// --call-graph dwarf). Only samples whose stack passes through ROOT
// (default prefixroute::simulate) count. Prints the share of the main components
// (inclusive) and the top functions by self time; kernel time under a page
// fault is shown as its own row (first touch of newly allocated memory).
// Complements the callgrind instruction counts: callgrind counts every byte
// of a `rep movs` copy as one instruction, a sampling profile sees real time.
import readline from 'node:readline';

const label = process.argv[2] || 'profile';
const root = process.argv[3] || 'prefixroute::simulate';
const samples = [];
let current = [];
const rl = readline.createInterface({ input: process.stdin });
for await (const line of rl) {
  const m = line.match(/^\s+([0-9a-f]+)\s+(.*)$/);
  if (m) {
    current.push({ kernel: m[1].length >= 16 && m[1].startsWith('ffff'), sym: m[2].replace(/ \(inlined\)$/, '').replace(/\+0x[0-9a-f]+$/, '') });
  } else if (current.length) {
    samples.push(current);
    current = [];
  }
}
if (current.length) samples.push(current);

const inSim = samples.filter((s) => s.some((f) => f.sym === root));
const total = inSim.length;
if (total === 0) {
  console.log(`\n#### ${label}: no samples inside ${root}\n`);
  process.exit(0);
}

const components = [
  ...(root === 'prefixroute::simulate' ? [] : [
    ['simulations (prefixroute::simulate)', (s) => s === 'prefixroute::simulate'],
    ['cache bounds (single_cache_bound)', (s) => s === 'prefixroute::single_cache_bound'],
    ['workload fingerprint (RequestTrace::fingerprint)', (s) => /::fingerprint$/.test(s)],
    ['workload generation (generate_workload)', (s) => s === 'prefixroute::generate_workload'],
  ]),
  ['prompt materialisation (RequestTrace::materialize)', (s) => /::materialize$/.test(s)],
  ['routing: policy choose()', (s) => /^prefixroute::\w+::choose$/.test(s)],
  ['  of which RadixCache::match', (s) => s === 'prefixroute::RadixCache::match'],
  ['cache update: RadixCache::insert', (s) => s === 'prefixroute::RadixCache::insert'],
  ['  of which eviction (evict_until_within_budget)', (s) => /RadixCache::evict_until_within_budget/.test(s)],
  ['  of which copying tokens into new edges (vector assign)', (s) => /std::vector<unsigned int.*::_M_assign_aux/.test(s)],
  ['page faults (kernel, first touch of new memory), anywhere', (s) => s === 'exc_page_fault'],
];

const pct = (n) => `${((100 * n) / total).toFixed(1)}%`;
console.log(`\n#### ${label}\n`);
const where = root === 'prefixroute::simulate' ? 'simulate()' : root;
console.log(`${total} samples inside ${where} (cpu-clock sampling).\n`);
console.log(`| Component (inclusive) | Share of ${where} time |`);
console.log('|---|---|');
let covered = 0;
for (const [name, test] of components) {
  const n = inSim.filter((s) => s.some((f) => test(f.sym))).length;
  if (root === 'prefixroute::simulate' && !name.startsWith('  ') && !name.startsWith('page faults')) covered += n;
  console.log(`| ${name} | ${pct(n)} |`);
}
if (root === 'prefixroute::simulate')
  console.log(`| simulator loop, queues, bookkeeping (the rest) | ${pct(total - covered)} |`);

const self = new Map();
for (const s of inSim) {
  const leaf = s[0];
  let name = leaf.sym;
  if (leaf.kernel) name = s.some((f) => f.sym === 'exc_page_fault') ? '[kernel: page faults]' : '[kernel: other]';
  self.set(name, (self.get(name) || 0) + 1);
}
console.log(`\n| Top functions (self time) | Share of ${where} time |`);
console.log('|---|---|');
for (const [name, n] of [...self.entries()].sort((a, b) => b[1] - a[1]).slice(0, 8)) {
  const shown = name.length > 90 ? `${name.slice(0, 87)}...` : name;
  console.log(`| \`${shown}\` | ${pct(n)} |`);
}
