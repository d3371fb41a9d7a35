// The library API: RadixCache, Cluster and the four policies, used from JS the
// way examples/quickstart.cpp uses them from C++.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';

import { QUICKSTART, loadModule, runNative } from './helpers.mjs';

let pr;
before(async () => {
  pr = await loadModule();
});

// Handles created by a test, deleted after it.
const handles = [];
const own = (h) => (handles.push(h), h);
after(() => {
  for (const h of handles) if (!h.isDeleted()) h.delete();
});

/** The libraries page's example (docs/reference/libraries.md): three requests sharing a 50-token system prompt. */
function readmeExample(makeTokens = (a) => a) {
  const cluster = new pr.Cluster(4, 20000);
  const policy = new pr.AffinityBalanced(0.05);
  const systemPrompt = Array.from({ length: 50 }, (_, t) => 1000 + t);
  const lines = [];
  const admissions = [];
  let now = 0;
  for (const [r, turn] of [[1, 2, 3], [4, 5], [6, 7, 8, 9]].entries()) {
    const tokens = makeTokens([...systemPrompt, ...turn]);
    const idx = policy.choose(tokens, cluster, now);
    const a = cluster.admit(idx, tokens, now, 10000);
    admissions.push({ idx, ...a });
    lines.push(`request ${r}: routed to replica ${idx} cached_prefix=${a.cachedTokens} tokens prefill=${a.prefillTokens} tokens`);
    now += 0.1;
  }
  cluster.delete();
  policy.delete();
  return { lines, admissions };
}

describe('the libraries page example', () => {
  test('request 0 prefills the system prompt; requests 1 and 2 find it cached', () => {
    const { admissions } = readmeExample();
    assert.deepEqual(admissions.map((a) => [a.cachedTokens, a.prefillTokens]), [[0, 53], [50, 2], [50, 4]]);
    assert.equal(new Set(admissions.map((a) => a.idx)).size, 1, 'all three on one replica');
    assert.equal(admissions[0].startSeconds, 0);
    assert.equal(admissions[0].firstTokenSeconds, 0.0053);
  });

  test('prints exactly what the native quickstart prints', () => {
    const native = runNative(QUICKSTART).trimEnd().split('\n');
    assert.deepEqual(readmeExample().lines, native);
  });

  test('tokens may be a Uint32Array or another integer typed array', () => {
    const plain = readmeExample().lines;
    assert.deepEqual(readmeExample((a) => new Uint32Array(a)).lines, plain);
    assert.deepEqual(readmeExample((a) => new Int32Array(a)).lines, plain);
    assert.deepEqual(readmeExample((a) => new Float64Array(a)).lines, plain);
  });
});

describe('RadixCache', () => {
  test('the header diagram: insert, split, evict the LRU leaf', () => {
    const cache = own(new pr.RadixCache(5));
    assert.deepEqual(cache.insert([1, 2, 3, 4]), { cachedTokens: 0, insertedTokens: 4, evictedTokens: 0 });
    assert.deepEqual(cache.insert([1, 2, 9]), { cachedTokens: 2, insertedTokens: 1, evictedTokens: 0 });
    assert.equal(cache.size(), 5);
    assert.equal(cache.nodeCount(), 3); // [1 2] -> [3 4], [9]
    // One more token is over budget: the least recently used leaf [3 4] goes.
    assert.deepEqual(cache.insert([7]), { cachedTokens: 0, insertedTokens: 1, evictedTokens: 2 });
    assert.equal(cache.size(), 4);
    assert.equal(cache.match([1, 2, 3, 4]), 2);
    assert.equal(cache.match(new Uint32Array([1, 2, 9, 9])), 3);
    assert.equal(cache.match([7]), 1);
    assert.equal(cache.evictedTotal(), 2);
    assert.equal(cache.checkInvariants(), '');
  });

  test('match is a peek; capacity, defaults and truncation', () => {
    const cache = own(new pr.RadixCache(3));
    assert.equal(cache.capacity(), 3);
    // The default is the core's, the same as the scenario's cluster.protect_after_hits.
    const scenarioDefault = JSON.parse(pr.validateScenario('', '').scenarioJson).cluster.protect_after_hits;
    assert.equal(cache.protectAfterHits(), scenarioDefault);
    assert.equal(own(new pr.Cluster(1, 3)).replica(0).cacheSize, 0);
    assert.equal(own(new pr.RadixCache(3, 0)).protectAfterHits(), 0);
    assert.equal(cache.match([1, 2]), 0);
    assert.equal(cache.size(), 0);
    assert.deepEqual(cache.insert([1, 2, 3, 4, 5]), { cachedTokens: 0, insertedTokens: 3, evictedTokens: 0 });
    assert.equal(cache.match([1, 2, 3, 4, 5]), 3);
    assert.deepEqual(cache.insert([]), { cachedTokens: 0, insertedTokens: 0, evictedTokens: 0 });
    assert.equal(cache.match([]), 0);
    assert.equal(own(new pr.RadixCache(0)).insert([1]).insertedTokens, 0);
  });

  test('token ids span the whole uint32 range', () => {
    const cache = own(new pr.RadixCache(10));
    cache.insert([0, 4294967295, 7]);
    assert.equal(cache.match([0, 4294967295, 7]), 3);
    assert.equal(cache.match([0, 4294967294]), 1);
  });

  test('agrees with a trivially correct model under random inserts (no eviction)', () => {
    const cache = own(new pr.RadixCache(1e6));
    const prompts = [];
    let seed = 12345;
    const rand = (n) => ((seed = (seed * 1103515245 + 12345) % 2147483648), seed % n);
    const modelMatch = (t) => {
      let best = 0;
      for (const p of prompts) {
        let k = 0;
        while (k < p.length && k < t.length && p[k] === t[k]) k++;
        best = Math.max(best, k);
      }
      return best;
    };
    for (let i = 0; i < 400; i++) {
      const base = prompts.length > 0 && rand(3) > 0 ? prompts[rand(prompts.length)] : [];
      const t = base.slice(0, rand(base.length + 1));
      for (let k = rand(6); k > 0; k--) t.push(rand(4));
      assert.equal(cache.match(t), modelMatch(t));
      assert.equal(cache.insert(t).cachedTokens, modelMatch(t));
      prompts.push(t);
    }
    assert.equal(cache.checkInvariants(), '');
  });
});

describe('Cluster and policies', () => {
  test('RoundRobin cycles regardless of state', () => {
    const c = own(new pr.Cluster(3, 100));
    const p = own(new pr.RoundRobin());
    assert.equal(p.name(), 'round_robin');
    assert.deepEqual([0, 1, 2, 3, 4].map(() => p.choose([1], c, 0)), [0, 1, 2, 0, 1]);
  });

  test('LeastLoaded avoids the busy replica; Affinity piles onto the cached one; AffinityBalanced does not', () => {
    const c = own(new pr.Cluster(2, 1000));
    const prompt = Array.from({ length: 100 }, (_, i) => i);
    // Replica 0 caches the prompt and is busy for 1 s (100 tokens at 100 tokens/s).
    const a = c.admit(0, prompt, 0, 100);
    assert.deepEqual(a, { cachedTokens: 0, prefillTokens: 100, startSeconds: 0, firstTokenSeconds: 1 });
    assert.deepEqual(c.replica(0), {
      requests: 1, prefillTokens: 100, cachedTokens: 0, busySeconds: 1, busyUntilSeconds: 1, cacheSize: 100, cacheNodes: 1,
    });
    assert.equal(c.match(0, prompt), 100);
    assert.equal(c.match(1, prompt), 0);
    assert.equal(own(new pr.LeastLoaded()).choose(prompt, c, 0.5), 1);
    assert.equal(own(new pr.Affinity()).choose(prompt, c, 0.5), 0);
    assert.equal(own(new pr.AffinityBalanced(0.05)).choose(prompt, c, 0.5), 1);
    assert.equal(own(new pr.AffinityBalanced(0.6)).choose(prompt, c, 0.5), 0);
    // Once replica 0 is idle again the cache wins.
    assert.equal(own(new pr.AffinityBalanced()).choose(prompt, c, 2), 0);
  });

  test('names, defaults and sizes', () => {
    assert.equal(own(new pr.LeastLoaded()).name(), 'least_loaded');
    assert.equal(own(new pr.Affinity()).name(), 'affinity');
    const b = own(new pr.AffinityBalanced());
    assert.equal(b.name(), 'affinity_balanced');
    assert.equal(b.loadSlackSeconds(), 0.05);
    assert.equal(own(new pr.Cluster(7, 10)).size(), 7);
    assert.equal(own(new pr.Cluster(1, 10, 0)).replica(0).cacheSize, 0);
  });

  test('a queued request starts when the work ahead drains', () => {
    const c = own(new pr.Cluster(1, 1000));
    c.admit(0, [1, 2, 3, 4], 0, 2); // busy until 2 s
    const second = c.admit(0, [9, 9], 1, 2); // arrives at 1 s, waits 1 s, runs 1 s
    assert.equal(second.startSeconds, 2);
    assert.equal(second.firstTokenSeconds, 3);
    assert.equal(c.replica(0).busyUntilSeconds, 3);
  });
});

describe('misuse throws TypeError / RangeError and leaves the module usable', () => {
  // Each bad argument with what the message says after "<method>: ".
  const notTokens = 'tokens must be an Array or a TypedArray (e.g. Uint32Array) of token ids';
  const badId = (i) => `tokens[${i}] must be an integer in [0, 4294967295]`;
  const badTokens = [
    ['a string', 'abc', notTokens],
    ['a number', 5, notTokens],
    ['undefined', undefined, notTokens],
    ['null', null, notTokens],
    ['an array-like object', { length: 1, 0: 1 }, notTokens],
    ['a negative id', [1, -1], badId(1)],
    ['a fractional id', [1.5], badId(0)],
    ['an id of 2^32', [2 ** 32], badId(0)],
    ['NaN', [NaN], badId(0)],
    ['a string element', ['1'], badId(0)],
    ['a BigUint64Array', new BigUint64Array([1n]), notTokens],
    ['a DataView', new DataView(new ArrayBuffer(4)), notTokens],
  ];
  for (const [name, tokens, why] of badTokens) {
    test(`tokens: ${name}`, () => {
      const cache = own(new pr.RadixCache(10));
      const cluster = own(new pr.Cluster(2, 10));
      const policy = own(new pr.AffinityBalanced());
      const refusal = (method) => ({ name: 'TypeError', message: `${method}: ${why}` });
      assert.throws(() => cache.match(tokens), TypeError);
      assert.throws(() => cache.match(tokens), refusal('RadixCache.match'));
      assert.throws(() => cache.insert(tokens), TypeError);
      assert.throws(() => cache.insert(tokens), refusal('RadixCache.insert'));
      assert.throws(() => policy.choose(tokens, cluster, 0), TypeError);
      assert.throws(() => policy.choose(tokens, cluster, 0), refusal('choose'));
      assert.throws(() => cluster.admit(0, tokens, 0, 100), TypeError);
      assert.throws(() => cluster.admit(0, tokens, 0, 100), refusal('Cluster.admit'));
      assert.throws(() => cluster.match(0, tokens), TypeError);
      assert.throws(() => cluster.match(0, tokens), refusal('Cluster.match'));
      assert.equal(cache.size(), 0);
    });
  }

  test('numbers out of range', () => {
    const c = own(new pr.Cluster(2, 10));
    // Each refusal: the argument, what is allowed, what was given.
    const cases = [
      [() => c.admit(2, [1], 0, 100), 'Cluster.admit: index must be an integer in [0, 1]; got 2'],
      [() => c.admit(-1, [1], 0, 100), 'Cluster.admit: index must be an integer in [0, 1]; got -1'],
      [() => c.admit(0.5, [1], 0, 100), 'Cluster.admit: index must be an integer in [0, 1]; got 0.5'],
      [() => c.admit(0, [1], -1, 100), 'Cluster.admit: nowSeconds must be a number in [0, 1e+09]; got -1'],
      [() => c.admit(0, [1], NaN, 100), 'Cluster.admit: nowSeconds must be a number in [0, 1e+09]; got nan'],
      [() => c.admit(0, [1], Infinity, 100), 'Cluster.admit: nowSeconds must be a number in [0, 1e+09]; got inf'],
      [() => c.admit(0, [1], 0, 0), 'Cluster.admit: prefillTokensPerS must be a number in [1, 1e+09]; got 0'],
      [() => c.replica(5), 'Cluster.replica: index must be an integer in [0, 1]; got 5'],
      [() => c.match(5, [1]), 'Cluster.match: index must be an integer in [0, 1]; got 5'],
      [() => own(new pr.RoundRobin()).choose([1], c, -0.5), 'choose: nowSeconds must be a number in [0, 1e+09]; got -0.5'],
      [() => new pr.Cluster(0, 10), 'Cluster: replicas must be an integer in [1, 4096]; got 0'],
      [() => new pr.Cluster(5000, 10), 'Cluster: replicas must be an integer in [1, 4096]; got 5000'],
      [() => new pr.Cluster(2, -1), 'Cluster: cacheTokens must be an integer in [0, 4294967295]; got -1'],
      [() => new pr.RadixCache(-1), 'RadixCache: capacityTokens must be an integer in [0, 4294967295]; got -1'],
      [() => new pr.RadixCache(1.5), 'RadixCache: capacityTokens must be an integer in [0, 4294967295]; got 1.5'],
      [() => new pr.RadixCache(2 ** 32), 'RadixCache: capacityTokens must be an integer in [0, 4294967295]; got 4.29497e+09'],
      [() => new pr.RadixCache(10, -1), 'RadixCache: protectAfterHits must be an integer in [0, 4294967295]; got -1'],
      [() => new pr.AffinityBalanced(-1), 'AffinityBalanced: loadSlackSeconds must be a number in [0, 3600]; got -1'],
      [() => new pr.AffinityBalanced(NaN), 'AffinityBalanced: loadSlackSeconds must be a number in [0, 3600]; got nan'],
    ];
    for (const [call, message] of cases) {
      assert.throws(call, RangeError);
      assert.throws(call, { name: 'RangeError', message });
    }
    assert.equal(c.replica(0).requests, 0, 'a refused admit changes nothing');
  });

  test('messages say what is allowed', () => {
    const c = own(new pr.Cluster(2, 10));
    assert.throws(() => c.admit(3, [1], 0, 100), { message: 'Cluster.admit: index must be an integer in [0, 1]; got 3' });
    assert.throws(() => c.match(0, [1, 2, -3]), { message: 'Cluster.match: tokens[2] must be an integer in [0, 4294967295]' });
  });

  test('errors leak nothing: 300000 of them leave no handle behind and the module intact', () => {
    // A JS error thrown from inside wasm would leak an emval handle and some
    // shadow stack per throw (~200000 of them used to corrupt the module);
    // the errors are thrown from JS after the call returns (wasm/post.js).
    const cache = own(new pr.RadixCache(10));
    const cluster = own(new pr.Cluster(2, 10));
    const handlesBefore = pr.count_emval_handles();
    const heap = pr.HEAP8.length;
    let thrown = 0;
    for (let i = 0; i < 100000; i++) {
      for (const f of [() => cache.match([1, -1]), () => cluster.admit(5, [1, 2], 0, 100), () => new pr.RadixCache(-1)]) {
        try {
          f();
        } catch {
          thrown += 1;
        }
      }
    }
    assert.equal(thrown, 300000);
    assert.equal(pr.count_emval_handles(), handlesBefore);
    assert.equal(pr.HEAP8.length, heap);
    const r = pr.runScenario('', '[["workload.requests","2000"]]', null);
    assert.equal(r.ok, true);
    const fresh = pr.runScenario('', '[["workload.requests","2000"]]', null);
    assert.equal(r.resultsJson, fresh.resultsJson);
  });

  test('a refused constructor gives no object; a later good call is unaffected', () => {
    assert.throws(() => new pr.Cluster(0, 10), RangeError);
    assert.throws(() => new pr.Cluster(0, 10), { name: 'RangeError', message: 'Cluster: replicas must be an integer in [1, 4096]; got 0' });
    const c = own(new pr.Cluster(1, 10));
    assert.ok(c instanceof pr.Cluster);
    assert.equal(c.size(), 1);
  });
});
