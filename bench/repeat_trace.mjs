// A long trace for the scaling targets: a Mooncake-format trace repeated N
// times back to back, each copy's timestamps shifted past the previous
// copy's last and its block ids renumbered past the previous copy's largest,
// so no copy shares a block with another (the same traffic, N times longer).
//
//   node bench/repeat_trace.mjs IN.jsonl N OUT.jsonl
//
// Reads IN twice (its span and largest id first), streams OUT line by line.
import fs from 'node:fs';
import readline from 'node:readline';

const [input, times, output] = process.argv.slice(2);
const copies = Number(times);
if (!input || !output || !Number.isInteger(copies) || copies < 1) {
  console.error('usage: node bench/repeat_trace.mjs IN.jsonl N OUT.jsonl');
  process.exit(2);
}

async function* lines(path) {
  const rl = readline.createInterface({ input: fs.createReadStream(path), crlfDelay: Infinity });
  for await (const line of rl) if (line.trim() !== '') yield line;
}

let span = 0;
let maxId = -1;
for await (const line of lines(input)) {
  const r = JSON.parse(line);
  span = Math.max(span, r.timestamp);
  for (const id of r.hash_ids) maxId = Math.max(maxId, id);
}
const shift = span + 1000;  // one second between copies
const out = fs.createWriteStream(output);
for (let c = 0; c < copies; ++c) {
  for await (const line of lines(input)) {
    const r = JSON.parse(line);
    r.timestamp += c * shift;
    r.hash_ids = r.hash_ids.map((id) => id + c * (maxId + 1));
    if (!out.write(JSON.stringify(r) + '\n')) await new Promise((resolve) => out.once('drain', resolve));
  }
}
await new Promise((resolve) => out.end(resolve));
console.error(`wrote ${output}: ${copies} copies, ids up to ${copies * (maxId + 1) - 1}, span ${copies * shift} ms`);
