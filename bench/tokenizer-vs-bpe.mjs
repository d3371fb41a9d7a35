// How the openai trace's tokenizer (core/include/prefixroute/workload/text_tokenizer.h)
// counts tokens compared with real BPE tokenizers (OpenAI's o200k_base and
// cl100k_base), on text files of this repository: English prose (Markdown),
// C++ and TypeScript. A one-off measurement, not a test: the BPE tokenizer is
// the npm package gpt-tokenizer, which is not a dependency of the project
// (the page never uses it). Install it anywhere and point at it:
//
//   npm install --prefix /tmp/bpe gpt-tokenizer@4.0.0
//   GPT_TOKENIZER=/tmp/bpe/node_modules/gpt-tokenizer node bench/tokenizer-vs-bpe.mjs [files...]
//
// Our counts come from the native benchmark itself: each file becomes a
// one-request openai trace ({"prompt": <the file's text>}) replayed by
// build/native/tools/prefixroute-bench, whose results JSON gives the prompt's
// tokens (workload.prompt_tokens).
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

const root = resolve(new URL('..', import.meta.url).pathname);
const bench = join(root, 'build/native/tools/prefixroute-bench');
const bpeDir = process.env.GPT_TOKENIZER;
if (!bpeDir) {
  console.error('set GPT_TOKENIZER to an installed gpt-tokenizer package folder (see the header)');
  process.exit(2);
}
const o200k = await import(pathToFileURL(join(bpeDir, 'esm/encoding/o200k_base.js')).href);
const cl100k = await import(pathToFileURL(join(bpeDir, 'esm/encoding/cl100k_base.js')).href);

const files = process.argv.length > 2 ? process.argv.slice(2) : [
  'README.md', 'docs/RELIABILITY.md', 'core/src/workload/trace_reader.cpp', 'core/src/sim/simulator.cpp',
  'web/src/results/table.ts', 'web/src/page/playground.ts',
];
const dir = mkdtempSync(join(tmpdir(), 'tokenizer-vs-bpe-'));
const ours = (text) => {
  const trace = join(dir, 'one.jsonl');
  writeFileSync(trace, JSON.stringify({ timestamp: 0, prompt: text, output_tokens: 1 }) + '\n');
  const out = join(dir, 'out.json');
  execFileSync(bench, ['--trace', trace, '--json', out, '--set', 'policies=round_robin',
    '--set', 'cluster.cache_tokens=10000000'], { stdio: 'ignore' });
  return JSON.parse(readFileSync(out, 'utf8')).workload.prompt_tokens;
};

// A special token's text in a file (README.md names ChatML's markers) is text like any other.
const asText = { disallowedSpecial: new Set() };
const rows = [];
const totals = { bytes: 0, ours: 0, o200k: 0, cl100k: 0 };
for (const file of files) {
  const text = readFileSync(join(root, file), 'utf8');
  const row = { file, bytes: Buffer.byteLength(text), ours: ours(text), o200k: o200k.encode(text, asText).length,
    cl100k: cl100k.encode(text, asText).length };
  rows.push(row);
  for (const k of Object.keys(totals)) totals[k] += row[k];
}
rmSync(dir, { recursive: true, force: true });
const ratio = (a, b) => (a / b).toFixed(3);
console.log('| File | Bytes | Ours | o200k_base | cl100k_base | Ours / o200k | Ours / cl100k |');
console.log('|---|---|---|---|---|---|---|');
for (const r of [...rows, { file: '**all**', ...totals }])
  console.log(`| ${r.file} | ${r.bytes} | ${r.ours} | ${r.o200k} | ${r.cl100k} | ${ratio(r.ours, r.o200k)} | ${ratio(r.ours, r.cl100k)} |`);
