// Trace replay in the module (TraceLoader + runTrace) is the command line's
// `prefixroute --trace FILE`: fed in chunks of any size, as text or as
// bytes, the shipped excerpt gives byte-for-byte the native results JSON, and
// bad lines stop or are skipped with the same line numbers and fields.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';

import { loadModule, overridesJson, ROOT, runNativeBench, runNativeBenchFailing, setArgs } from './helpers.mjs';

const EXCERPT = path.join(ROOT, 'scenarios/traces/mooncake-conversation-first-1000.jsonl');
const NAME = path.basename(EXCERPT);

let pr;
let tmp;
before(async () => {
  pr = await loadModule();
  tmp = fs.mkdtempSync(path.join(fs.realpathSync(os.tmpdir()), 'prefixroute-trace-'));
});
after(() => fs.rmSync(tmp, { recursive: true, force: true }));

/** A small seeded generator (mulberry32), so a failing chunking can be replayed. */
function random(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Splits `data` (string or Uint8Array) at random points: chunks of 1 byte up to `max`. */
function chunksOf(data, seed, max) {
  const next = random(seed);
  const out = [];
  for (let pos = 0; pos < data.length; ) {
    const size = 1 + Math.floor(next() * next() * max);
    out.push(data.slice(pos, pos + size));
    pos += size;
  }
  return out;
}

/** Feeds `chunks` to a new loader; returns { loader, loaded, statuses }. */
function load(name, chunks, pairs = []) {
  const loader = new pr.TraceLoader(name, '', overridesJson(pairs));
  const statuses = [];
  for (const chunk of chunks) {
    const status = loader.feed(chunk);
    statuses.push(status);
    if (!status.going) break;
  }
  return { loader, loaded: loader.finish(), statuses };
}

function writeTrace(name, lines) {
  const file = path.join(tmp, name);
  fs.writeFileSync(file, lines.map((l) => `${l}\n`).join(''));
  return file;
}

const line = (timestamp, input, ids) =>
  JSON.stringify({ timestamp, input_length: input, output_length: 3, hash_ids: ids });

describe('a Qwen-Bailian trace (trace.format auto and bailian) replays natively == wasm byte for byte', () => {
  // 120 requests in 30 conversations over 4 system prompts: turns extend their
  // parent's prompt, many last blocks are partial (16-token blocks).
  const bailianLines = () => {
    const next = random(15);
    const lines = [];
    const prompts = [];
    let fresh = 100;
    for (let chat = 0; chat < 120; chat++) {
      const root = chat < 30 ? true : next() < 0.2;
      const parent = root ? -1 : Math.floor(next() * chat);
      const full = root ? [Math.floor(next() * 4)] : prompts[parent].ids.slice(0, Math.floor(prompts[parent].input / 16));
      const ids = [...full];
      for (let k = 0, more = 1 + Math.floor(next() * 5); k < more; k++) ids.push(fresh++);
      const input = (ids.length - 1) * 16 + 1 + Math.floor(next() * 16);
      prompts.push({ ids, input });
      lines.push(JSON.stringify({ chat_id: 1000 + chat, parent_chat_id: root ? -1 : 1000 + parent, timestamp: chat * 0.05,
        input_length: input, output_length: 1 + Math.floor(next() * 50), type: 'text', turn: root ? 1 : 2, hash_ids: ids }));
    }
    return lines;
  };
  for (const [title, pairs] of [
    ['auto-detected, every policy on 4 replicas with 2k-token caches', [['cluster.replicas', '4'], ['cluster.cache_tokens', '2000'], ['policies', 'all']]],
    ['trace.format=bailian, the batched engine', [['trace.format', 'bailian'], ['cluster.engine', 'batched'], ['cluster.replicas', '3']]],
  ]) {
    test(title, () => {
      const file = writeTrace('bailian-small.jsonl', bailianLines());
      const native = runNativeBench(['--trace', file, ...setArgs(pairs)]);
      const { loader, loaded } = load('bailian-small.jsonl', chunksOf(fs.readFileSync(file, 'utf8'), 7, 500), pairs);
      try {
        assert.equal(loaded.ok, true, JSON.stringify(loaded.problems));
        const run = pr.runTrace(loader, '', overridesJson(pairs), null);
        assert.equal(run.ok, true, JSON.stringify(run.errors));
        assert.equal(run.resultsJson, native.json);
      } finally {
        loader.delete();
      }
    });
  }
});

describe('an openai-format chat log (trace.format auto and openai) replays natively == wasm byte for byte', () => {
  // 90 requests in 25 sessions: each call re-sends its session's messages with
  // the last answer and a new question (ChatML-tokenized text, shared system
  // prompts), ISO 8601 and numeric timestamps, completion prompts without a
  // session, non-ASCII text; fed as bytes split anywhere (inside a UTF-8
  // character too).
  const openaiLines = () => {
    const next = random(21);
    const systems = ['You are a careful assistant.', 'Réponds en français, brièvement.', 'You write Python code; explain it in one line.'];
    const words = ['cache', 'replica', 'prefix', 'token', 'router', '日本', 'naïve', '🙂', 'queue', '12345', 'déjà', 'vu'];
    const text = (n) => Array.from({ length: n }, () => words[Math.floor(next() * words.length)]).join(next() < 0.3 ? ', ' : ' ');
    const sessions = [];
    const lines = [];
    const start = Date.UTC(2026, 2, 1, 12, 0, 0);
    for (let i = 0; i < 90; i++) {
      const ms = start + i * 700 + Math.floor(next() * 300);
      const timestamp = next() < 0.5 ? new Date(ms).toISOString() : ms / 1000;
      if (next() < 0.1) {
        lines.push(JSON.stringify({ timestamp, prompt: text(5 + Math.floor(next() * 40)), usage: { completion_tokens: 1 + Math.floor(next() * 30) } }));
        continue;
      }
      let s = sessions.length < 25 && (sessions.length === 0 || next() < 0.35) ? null : sessions[Math.floor(next() * sessions.length)];
      if (!s) {
        s = { id: `chat-${sessions.length}`, messages: [{ role: 'system', content: systems[Math.floor(next() * systems.length)] }] };
        sessions.push(s);
      } else {
        s.messages.push({ role: 'assistant', content: text(3 + Math.floor(next() * 20)) });
      }
      s.messages.push({ role: 'user', content: text(2 + Math.floor(next() * 30)) });
      lines.push(JSON.stringify({ timestamp, messages: s.messages, output_tokens: 1 + Math.floor(next() * 60), session_id: s.id }));
    }
    return lines;
  };
  for (const [title, pairs] of [
    ['auto-detected, every policy on 4 replicas with 800-token caches', [['cluster.replicas', '4'], ['cluster.cache_tokens', '800'], ['policies', 'all']]],
    ['trace.format=openai, the batched engine', [['trace.format', 'openai'], ['cluster.engine', 'batched'], ['cluster.replicas', '3']]],
  ]) {
    test(title, () => {
      const file = writeTrace('openai-small.jsonl', openaiLines());
      const native = runNativeBench(['--trace', file, ...setArgs(pairs)]);
      assert.match(native.json, /"later_call_hit_rate"/);
      const { loader, loaded } = load('openai-small.jsonl', chunksOf(new Uint8Array(fs.readFileSync(file)), 9, 400), pairs);
      try {
        assert.equal(loaded.ok, true, JSON.stringify(loaded.problems));
        assert.equal(loaded.format, 'openai');
        const run = pr.runTrace(loader, '', overridesJson(pairs), null);
        assert.equal(run.ok, true, JSON.stringify(run.errors));
        assert.equal(run.resultsJson, native.json);
      } finally {
        loader.delete();
      }
    });
  }
});

describe('runTrace equals prefixroute --trace byte for byte', () => {
  const cases = [
    { title: 'reference cluster, text chunks', pairs: [], bytes: false, seed: 1, max: 9000 },
    { title: 'reference cluster, byte chunks', pairs: [], bytes: true, seed: 2, max: 70000 },
    {
      title: 'every policy on 8 replicas with 200k-token caches, byte chunks',
      pairs: [['cluster.replicas', '8'], ['cluster.cache_tokens', '200000'], ['policies', 'all']],
      bytes: true,
      seed: 3,
      max: 4096,
    },
    {
      title: 'time scale and limit',
      pairs: [['trace.time_scale', '0.5'], ['trace.limit', '600'], ['policies', 'expected_ttft,affinity_balanced']],
      bytes: false,
      seed: 4,
      max: 200,
    },
    {
      title: 'a time window of the trace\'s clock (arrivals from its start), and its first requests',
      pairs: [['trace.start_s', '60'], ['trace.end_s', '240'], ['trace.limit', '400'], ['policies', 'round_robin,affinity']],
      bytes: true,
      seed: 6,
      max: 3000,
      // Reading ends at the 400th request of the window, after the lines before 60 s.
    },
    {
      title: 'the batched engine (the trace\'s output lengths decode) on Llama-3.1-70B, 4 H100s per replica',
      pairs: [['cluster.engine', 'batched'], ['hardware.model', 'llama-3.1-70b'], ['hardware.tp', '4'], ['cluster.replicas', '8'],
        ['policies', 'all']],
      bytes: true,
      seed: 5,
      max: 8192,
    },
  ];
  for (const c of cases) {
    test(c.title, () => {
      const native = runNativeBench(['--trace', EXCERPT, ...setArgs(c.pairs)]);
      const data = c.bytes ? new Uint8Array(fs.readFileSync(EXCERPT)) : fs.readFileSync(EXCERPT, 'utf8');
      const { loader, loaded } = load(NAME, chunksOf(data, c.seed, c.max), c.pairs);
      try {
        assert.equal(loaded.ok, true, JSON.stringify(loaded.problems));
        const run = pr.runTrace(loader, '', overridesJson(c.pairs), null);
        assert.equal(run.ok, true, JSON.stringify(run.errors));
        assert.equal(run.resultsJson, native.json);
        const scenario = JSON.parse(run.scenarioJson);
        assert.equal(scenario.trace.name, NAME);
        const windowed = c.pairs.some(([k]) => k === 'trace.start_s');
        const before = windowed ? fs.readFileSync(EXCERPT, 'utf8').split('\n').filter((l) => l && JSON.parse(l).timestamp < 60_000).length : 0;
        assert.equal(scenario.trace.lines, before + (c.pairs.some(([k]) => k === 'trace.limit') ? Number(new Map(c.pairs).get('trace.limit')) : 1000));
        if (windowed) assert.equal(JSON.parse(run.resultsJson).workload.requests, 400);
        assert.equal(scenario.trace.content_hash, loaded.contentHash);
        assert.equal(run.series.length, JSON.parse(native.json).results.length);
      } finally {
        loader.delete();
      }
    });
  }

  // The whole conversation trace (3 MB, 12,031 requests) lives outside the
  // repository and takes about 20 s here: opt in with PREFIXROUTE_FULL_TRACE=1.
  const full = path.join(ROOT, '../shared/traces/mooncake_conversation_trace.jsonl');
  test('the whole conversation trace, when present and asked for', { skip: !(process.env.PREFIXROUTE_FULL_TRACE === '1' && fs.existsSync(full)) }, () => {
    const pairs = [['cluster.replicas', '8'], ['cluster.cache_tokens', '1000000']];
    const { loader, loaded } = load(path.basename(full), chunksOf(new Uint8Array(fs.readFileSync(full)), 7, 1 << 20), pairs);
    try {
      assert.equal(loaded.ok, true);
      const run = pr.runTrace(loader, '', overridesJson(pairs), null);
      assert.equal(run.ok, true, JSON.stringify(run.errors));
      assert.equal(run.resultsJson, runNativeBench(['--trace', full, ...setArgs(pairs)]).json);
    } finally {
      loader.delete();
    }
  });

  test('progress counts bytes, lines and requests; a loaded trace runs again with other cluster settings', () => {
    const bytes = new Uint8Array(fs.readFileSync(EXCERPT));
    const { loader, loaded, statuses } = load(`some/dir/${NAME}`, chunksOf(bytes, 5, 50000));
    try {
      assert.equal(loaded.name, NAME, 'directories are dropped, as the CLI records the file name');
      assert.equal(loaded.bytes, bytes.length);
      assert.equal(loaded.requests, 1000);
      assert.equal(loaded.skippedLines, 0);
      let previous = 0;
      for (const s of statuses) {
        assert.ok(s.bytes > previous && s.lines <= 1000 && s.requests <= s.lines && s.error === '');
        previous = s.bytes;
      }
      for (const pairs of [[['cluster.replicas', '2']], [['cluster.replicas', '16'], ['policies', 'dynamo_kv']]]) {
        const run = pr.runTrace(loader, '', overridesJson(pairs), null);
        assert.equal(run.ok, true, JSON.stringify(run.errors));
        assert.equal(run.resultsJson, runNativeBench(['--trace', EXCERPT, ...setArgs(pairs)]).json);
      }
    } finally {
      loader.delete();
    }
  });
});

describe('bad lines', () => {
  const good = [line(0, 8, [1, 2]), line(5, 8, [1, 3])];
  const lines = [...good, line(6, 8, [1, 4]).replace('"input_length":8', '"input_length":-8'), line(9, 4, [1]), 'not json', line(12, 4, [7])];

  test('stop (the default): the first bad line stops reading, with its line number and field, like the CLI', () => {
    const file = writeTrace('bad.jsonl', lines);
    const pairs = [['trace.block_size', '4']];
    const { loader, loaded, statuses } = load('bad.jsonl', [fs.readFileSync(file, 'utf8')], pairs);
    try {
      assert.equal(statuses.at(-1).going, false);
      assert.equal(loaded.ok, false);
      assert.equal(loaded.problems.length, 1);
      const [p] = loaded.problems;
      assert.equal(p.line, 3);
      assert.equal(p.field, 'input_length');
      assert.match(p.message, /must be an integer in \[1, 10000000\]; got -8/);
      const native = runNativeBenchFailing(['--trace', file, ...setArgs(pairs)]);
      assert.equal(native.status, 2);
      assert.ok(native.stderr.includes(`line 3, input_length: ${p.message}\n`), native.stderr);
      const run = pr.runTrace(loader, '', overridesJson(pairs), null);
      assert.equal(run.ok, false);
      assert.equal(run.errors[0].field, '(trace)');
      assert.match(run.errors[0].message, /line 3, input_length: must be an integer/);
    } finally {
      loader.delete();
    }
  });

  test('skip: bad lines are skipped and counted, the rest replays as the CLI does', () => {
    const file = writeTrace('skip.jsonl', lines);
    const pairs = [['trace.block_size', '4'], ['trace.on_error', 'skip']];
    const text = fs.readFileSync(file, 'utf8');
    const { loader, loaded } = load('skip.jsonl', chunksOf(text, 6, 10), pairs);
    try {
      assert.equal(loaded.ok, true);
      assert.equal(loaded.skippedLines, 2);
      assert.equal(loaded.requests, 4);
      assert.deepEqual(loaded.problems.map((p) => [p.line, p.field]), [[3, 'input_length'], [5, '']]);
      assert.deepEqual(loaded.problems.map((p) => p.message), ['must be an integer in [1, 10000000]; got -8', 'not valid JSON']);
      const run = pr.runTrace(loader, '', overridesJson(pairs), null);
      assert.equal(run.ok, true, JSON.stringify(run.errors));
      assert.equal(JSON.parse(run.scenarioJson).trace.skipped_lines, 2);
      assert.equal(run.resultsJson, runNativeBench(['--trace', file, ...setArgs(pairs)]).json);
    } finally {
      loader.delete();
    }
  });
});

describe('refusals are values', () => {
  test('reading settings must match the loader; a given content hash must match the file', () => {
    const { loader, loaded } = load(NAME, [fs.readFileSync(EXCERPT)]);
    try {
      const mismatch = pr.runTrace(loader, '', overridesJson([['trace.block_size', '16'], ['trace.on_error', 'skip']]), null);
      assert.equal(mismatch.ok, false);
      assert.deepEqual(mismatch.errors.map((e) => e.field), ['trace.block_size', 'trace.on_error']);
      assert.match(mismatch.errors[0].message, /read with 512/);
      assert.equal(mismatch.errors[1].message, 'the trace was read with stop; read it again with this value to replay it so');
      const wrongHash = pr.runTrace(loader, '', overridesJson([['trace.content_hash', '0123456789abcdef']]), null);
      assert.equal(wrongHash.ok, false);
      assert.equal(wrongHash.errors[0].field, 'trace.content_hash');
      assert.equal(wrongHash.errors[0].message,
        `the scenario expects 0123456789abcdef but ${NAME} hashes to ${loaded.contentHash} (a different file or version)`);
      const rightHash = pr.runTrace(loader, '', overridesJson([['trace.content_hash', loaded.contentHash], ['policies', 'round_robin']]), null);
      assert.equal(rightHash.ok, true, JSON.stringify(rightHash.errors));
    } finally {
      loader.delete();
    }
  });

  test('a trace whose prefill work at cluster.prefill_tokens_per_s exceeds 1e9 s is refused, as by the CLI', () => {
    const ids = (i) => Array.from({ length: 10 }, (_, b) => i * 10 + b);
    const file = writeTrace('huge.jsonl', Array.from({ length: 101 }, (_, i) => line(i, 10_000_000, ids(i))));
    const pairs = [['trace.block_size', '1048576'], ['cluster.prefill_tokens_per_s', '1']];
    const { loader, loaded } = load('huge.jsonl', [fs.readFileSync(file)], pairs);
    try {
      assert.equal(loaded.ok, true, JSON.stringify(loaded.problems));
      const run = pr.runTrace(loader, '', overridesJson(pairs), null);
      assert.equal(run.ok, false);
      assert.equal(run.errors[0].field, 'cluster.prefill_tokens_per_s');
      assert.match(run.errors[0].message, /total prompt tokens \(1010000000\)/);
      const native = runNativeBenchFailing(['--trace', file, ...setArgs(pairs)]);
      assert.equal(native.status, 2);
      assert.ok(native.stderr.includes(`cluster.prefill_tokens_per_s: ${run.errors[0].message}`), native.stderr);
    } finally {
      loader.delete();
    }
  });

  test('misuse never throws: bad chunks, a bad scenario, an unfinished loader, feeding after finish', () => {
    const loader = new pr.TraceLoader(NAME, '', '');
    try {
      for (const bad of [42, null, undefined, {}, [1, 2]]) {
        const s = loader.feed(bad);
        assert.equal(s.going, false);
        assert.match(s.error, /string or bytes/);
      }
      assert.equal(loader.feed(line(0, 512, [1]) + '\n').going, true, 'a bad chunk does not stop the loader');
      const early = pr.runTrace(loader, '', '', null);
      assert.equal(early.ok, false);
      assert.match(early.errors[0].message, /still being read/);
      assert.equal(loader.finish().requests, 1);
      assert.match(loader.feed('more').error, /has finished/);
      assert.equal(pr.runTrace(loader, '', '', 'not a function').errors[0].field, '(onProgress)');
    } finally {
      loader.delete();
    }
    const bad = new pr.TraceLoader(NAME, '{"cluster": {"replicas": 0}}', '');
    try {
      const loaded = bad.finish();
      assert.equal(loaded.ok, false);
      assert.deepEqual(loaded.problems.map((p) => [p.line, p.field]), [[0, 'cluster.replicas']]);
      assert.equal(loaded.problems[0].message, 'must be an integer in [1, 4096] (replicas); got 0');
      assert.match(bad.feed('x').error, /could not start: cluster.replicas/);
    } finally {
      bad.delete();
    }
  });

  test('the surface is as declared: TraceLoader has feed and finish, runTrace takes four arguments', () => {
    assert.equal(pr.runTrace.argCount, 4);
    const own = Object.getOwnPropertyNames(pr.TraceLoader.prototype).filter(
      (n) => !['constructor', 'isAliasOf', 'clone', 'delete', 'isDeleted', 'deleteLater'].includes(n),
    );
    assert.deepEqual(own.sort(), ['feed', 'finish']);
  });

  test('runScenario still refuses a scenario naming a trace, and points to runTrace', () => {
    const r = pr.runScenario('', overridesJson([['trace.name', 'x.jsonl']]), null);
    assert.equal(r.ok, false);
    assert.match(r.errors[0].message, /TraceLoader and runTrace/);
  });
});

describe('what was read: the module’s summaryJson is prefixroute --trace FILE --trace-summary --json byte for byte', () => {
  const summaryOf = (file, pairs) => runNativeBench(['--trace', file, '--trace-summary', ...setArgs(pairs)]).json;

  test('the shipped excerpt (Mooncake), fed in random chunks', () => {
    const data = fs.readFileSync(EXCERPT);
    const { loader, loaded } = load(NAME, chunksOf(new Uint8Array(data), 7, 70_000));
    try {
      assert.equal(loaded.ok, true);
      assert.equal(loaded.summaryJson, summaryOf(EXCERPT, []));
      const doc = JSON.parse(loaded.summaryJson);
      assert.equal(doc.requests, 1000);
      assert.equal(doc.fields, null);
    } finally {
      loader.delete();
    }
  });

  test('an openai log with both time and session keys, under each mapping choice', () => {
    const lines = [];
    for (let i = 0; i < 30; i++) {
      lines.push(JSON.stringify({
        timestamp: i * 1.5,
        created: 1767225600 + i * 7,
        session_id: `s${i}`,
        user: `u${i % 5}`,
        messages: [{ role: 'system', content: 'Shared instructions for every caller of this log.' }, { role: 'user', content: `Question ${i}` }],
        usage: { completion_tokens: 10 + i },
      }));
    }
    const file = writeTrace('keys.jsonl', lines);
    const data = fs.readFileSync(file);
    for (const pairs of [[], [['trace.time_field', 'created']], [['trace.session_field', 'user']], [['trace.session_field', 'none'], ['trace.time_field', 'timestamp']]]) {
      const { loader, loaded } = load('keys.jsonl', [data], pairs);
      try {
        assert.equal(loaded.ok, true, JSON.stringify(pairs));
        assert.equal(loaded.summaryJson, summaryOf(file, pairs), JSON.stringify(pairs));
      } finally {
        loader.delete();
      }
    }
    const { loader, loaded } = load('keys.jsonl', [data], [['trace.session_field', 'user'], ['trace.time_field', 'created']]);
    const doc = JSON.parse(loaded.summaryJson);
    loader.delete();
    assert.equal(doc.sessions.count, 5);
    assert.equal(doc.duration_s, 29 * 7);
    assert.deepEqual(doc.fields.time, { chosen: 'created', read: { timestamp: 0, created: 30 }, present: { timestamp: 30, created: 30 } });
  });

  test('a failed read has no summary', () => {
    const { loader, loaded } = load('bad.jsonl', ['{"timestamp": 0}\n']);
    assert.equal(loaded.ok, false);
    assert.equal(loaded.summaryJson, '');
    loader.delete();
  });
});
