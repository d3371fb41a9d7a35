// onProgress(policyIndex, done, total) is called between chunks of the run;
// returning false cancels it, and the module stays usable afterwards.
import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';

import { loadModule } from './helpers.mjs';

let pr;
before(async () => {
  pr = await loadModule();
});

// 10000 requests: the simulator reports every 4096, so each policy reports
// done = 0, 4096 and 8192.
const OVERRIDES = JSON.stringify([['workload.requests', '10000'], ['policies', 'round_robin,affinity_balanced']]);

describe('progress', () => {
  test('is reported per policy, then per bound phase, in order', () => {
    const calls = [];
    const r = pr.runScenario('', OVERRIDES, (policyIndex, done, total) => {
      calls.push([policyIndex, done, total]);
      return true;
    });
    assert.equal(r.ok, true);
    assert.deepEqual(calls, [
      [0, 0, 10000], [0, 4096, 10000], [0, 8192, 10000],
      [1, 0, 10000], [1, 4096, 10000], [1, 8192, 10000],
      // after the two policies: the ideal and pooled cache bounds
      [2, 0, 10000], [3, 0, 10000],
    ]);
  });

  test('a callback returning undefined (or anything but false) goes on', () => {
    let n = 0;
    const r = pr.runScenario('', OVERRIDES, () => {
      n += 1;
    });
    assert.equal(r.ok, true);
    assert.ok(n > 0);
    assert.equal(pr.runScenario('', OVERRIDES, () => 0).ok, true);
  });

  test('a run with and without progress gives the same bytes', () => {
    const a = pr.runScenario('', OVERRIDES, () => true);
    const b = pr.runScenario('', OVERRIDES, null);
    const c = pr.runScenario('', OVERRIDES, undefined);
    assert.equal(a.resultsJson, b.resultsJson);
    assert.equal(c.resultsJson, b.resultsJson);
  });
});

test('onProgress may call into the module, runScenario included', () => {
  const small = JSON.stringify([['workload.requests', '300']]);
  const expected = pr.runScenario('', small, null).resultsJson;
  const nested = [];
  const r = pr.runScenario('', OVERRIDES, (p, done) => {
    if (done === 4096) {
      nested.push(pr.runScenario('', small, null).resultsJson);
      nested.push(pr.validateScenario('', small).ok);
    }
  });
  assert.equal(r.ok, true);
  assert.equal(r.resultsJson, pr.runScenario('', OVERRIDES, null).resultsJson);
  assert.deepEqual(nested, [expected, true, expected, true]);
});

describe('cancel', () => {
  const cancelAt = (policy, done) => {
    let calls = 0;
    const r = pr.runScenario('', OVERRIDES, (p, d) => {
      calls += 1;
      return !(p === policy && d === done);
    });
    return { r, calls };
  };

  for (const [policy, done, calls] of [[0, 0, 1], [0, 4096, 2], [1, 8192, 6], [2, 0, 7], [3, 0, 8]]) {
    test(`returning false at (${policy}, ${done}) cancels the run there`, () => {
      const { r, calls: seen } = cancelAt(policy, done);
      assert.deepEqual(r, { ok: false, cancelled: true, errors: [{ field: '(run)', message: 'cancelled' }] });
      assert.equal(seen, calls, 'no callback after the cancelling one');
    });
  }

  test('the module runs normally after a cancel', () => {
    cancelAt(0, 4096);
    const after = pr.runScenario('', OVERRIDES, null);
    const fresh = pr.runScenario('', OVERRIDES, () => true);
    assert.equal(after.ok, true);
    assert.equal(after.resultsJson, fresh.resultsJson);
  });

  test('a callback that throws stops the run with an error value, not an exception', () => {
    const r = pr.runScenario('', OVERRIDES, (p, d) => {
      if (d === 4096) throw new Error('boom');
      return true;
    });
    assert.equal(r.ok, false);
    assert.equal(r.cancelled, undefined);
    assert.equal(r.errors[0].field, '(onProgress)');
    assert.match(r.errors[0].message, /boom/);
    assert.equal(r.errors[0].message, 'onProgress threw: boom');
    const weird = pr.runScenario('', OVERRIDES, () => {
      throw Object.create(null); // no message, no toString
    });
    assert.equal(weird.ok, false);
    assert.equal(weird.errors[0].field, '(onProgress)');
    assert.equal(weird.errors[0].message, 'onProgress threw: exception');  // nothing to quote: says what happened
    assert.equal(pr.runScenario('', OVERRIDES, null).ok, true);
  });
});
