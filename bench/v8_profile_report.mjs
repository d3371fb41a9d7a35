// Top functions by self time of a V8 CPU profile (node --cpu-prof), for the
// wasm module's share of each function (docs/PERFORMANCE.md). Function names
// of wasm code need a module linked with --profiling-funcs.
//
//   node bench/v8_profile_report.mjs LABEL FILE.cpuprofile [N]
import fs from 'node:fs';

const [label, file, n = '12'] = process.argv.slice(2);
const profile = JSON.parse(fs.readFileSync(file, 'utf8'));
const nodes = new Map(profile.nodes.map((node) => [node.id, node]));
const self = new Map();
let total = 0;
profile.samples.forEach((id, i) => {
  const dt = profile.timeDeltas[i] || 0;
  const frame = nodes.get(id).callFrame;
  const name = frame.functionName || `(${frame.url ? frame.url.split('/').pop() : 'anonymous'})`;
  self.set(name, (self.get(name) || 0) + dt);
  total += dt;
});
// Idle time (the event loop waiting) is not work.
const idle = (self.get('(idle)') || 0) + (self.get('(program)') || 0) + (self.get('(garbage collector)') || 0);
console.log(`\n#### ${label}\n`);
console.log(`${(total / 1000).toFixed(0)} ms sampled; (idle), (program) and (garbage collector) together ` +
  `${((100 * idle) / total).toFixed(1)}%.\n`);
console.log('| Top functions (self time) | Share of all samples |');
console.log('|---|---|');
for (const [name, t] of [...self.entries()].sort((a, b) => b[1] - a[1]).slice(0, Number(n))) {
  const shown = name.replace(/\(std::__2::[^)]*\)|\(unsigned long long, unsigned long long\)/g, '(...)');
  const short = shown.length > 90 ? `${shown.slice(0, 87)}...` : shown;
  console.log(`| \`${short}\` | ${((100 * t) / total).toFixed(1)}% |`);
}
