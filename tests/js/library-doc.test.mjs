// The libraries page's JavaScript example stays runnable and true:
//   wasm/quickstart.mjs prints exactly what the C++ quickstart prints, and
//   the ```js block after "<!-- example: wasm/quickstart.mjs -->" in
//   docs/reference/libraries.md is that file, byte for byte.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';

import { QUICKSTART, ROOT, runNative } from './helpers.mjs';

const EXAMPLE = path.join(ROOT, 'wasm/quickstart.mjs');
const MARKER = '<!-- example: wasm/quickstart.mjs -->';
const DOC = 'docs/reference/libraries.md';

test('wasm/quickstart.mjs prints what examples/quickstart.cpp prints', () => {
  const js = execFileSync(process.execPath, [EXAMPLE], { encoding: 'utf8', cwd: '/' });
  assert.equal(js, runNative(QUICKSTART));
  assert.match(js, /^request 0: .* cached_prefix=0 tokens prefill=53 tokens$/m);
  assert.match(js, /^request 1: .* cached_prefix=50 tokens prefill=2 tokens$/m);
  assert.match(js, /^request 2: .* cached_prefix=50 tokens prefill=4 tokens$/m);
});

test('the libraries page shows wasm/quickstart.mjs verbatim', () => {
  const doc = fs.readFileSync(path.join(ROOT, DOC), 'utf8');
  const at = doc.indexOf(MARKER);
  assert.ok(at >= 0, `${DOC} has no "${MARKER}" line`);
  const block = doc.slice(at + MARKER.length).match(/^\s*```(?:js|javascript)\n([\s\S]*?)^```/m);
  assert.ok(block, `no \`\`\`js block after ${MARKER}`);
  assert.equal(block[1], fs.readFileSync(EXAMPLE, 'utf8'));
});
