// Bad input comes back as a value that names the field: never an exception,
// never an abort. After any of these the same module instance still works.
import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';

import { loadModule } from './helpers.mjs';

let pr;
before(async () => {
  pr = await loadModule();
});

// An error value: `field` names what is wrong and `message` (a RegExp) says
// what is allowed and what was given, on the first error.
function fails(result, field, message) {
  assert.equal(result.ok, false, 'expected an error value');
  assert.ok(Array.isArray(result.errors) && result.errors.length > 0);
  for (const e of result.errors) {
    assert.equal(typeof e.field, 'string');
    assert.equal(typeof e.message, 'string');
    assert.ok(e.message.length > 0);
  }
  if (field !== undefined) assert.equal(result.errors[0].field, field, JSON.stringify(result.errors));
  if (message !== undefined) assert.match(result.errors[0].message, message);
  assert.equal('resultsJson' in result, false);
  assert.equal('series' in result, false);
}

const OVERRIDES_FORM = /^must be a JSON array of \[key, valueText\] pairs, e\.g\. \[\["cluster\.replicas", "8"\]\]$/;

describe('runScenario and validateScenario return errors as values', () => {
  const cases = [
    ['a value out of range (document)', '{"cluster":{"replicas":0}}', '', 'cluster.replicas',
      /^must be an integer in \[1, 4096\] \(replicas\); got 0$/],
    ['a value out of range (override)', '', '[["cluster.replicas","0"]]', 'cluster.replicas',
      /^must be an integer in \[1, 4096\] \(replicas\); got 0$/],
    ['a wrong type', '{"workload":{"requests":"many"}}', '', 'workload.requests',
      /^must be an integer in \[1, 10000000\] \(requests\); got "many" \(a string\)$/],
    ['a non-integer count', '{"workload":{"requests":1.5}}', '', 'workload.requests',
      /^must be an integer in \[1, 10000000\] \(requests\); got 1\.5$/],
    ['an unknown policy', '{"policies":["fastest"]}', '', 'policies',
      /^unknown policy "fastest"; allowed: round_robin, least_loaded, affinity, affinity_balanced, .* or all$/],
    ['malformed JSON', '{"cluster": {', '', '(document)', /parse error at line 1, column 14: .*unexpected end of input/],
    ['a document that is not an object', '[1, 2]', '', '(document)', /^must be a JSON object; got an array$/],
    ['trailing garbage', '{} x', '', '(document)', /parse error at line 1, column 4: .*expected end of input$/],
    ['malformed overrides JSON', '', '[["seed", "1"]', '(overrides)',
      /^not valid JSON \(.*parse error at line 1, column 15: .*expected '\]'\); must be a JSON array of \[key, valueText\] pairs/],
    ['overrides that are not an array', '', '{"seed": 1}', '(overrides)', OVERRIDES_FORM],
    ['an override that is not a pair', '', '[["seed"]]', '(overrides)', /^entry 0 is not a \[key, valueText\] pair; /],
    ['an override key that is not a string', '', '[[1, "2"]]', '(overrides)', /^entry 0 is not a \[key, valueText\] pair; /],
    ['a scenario too big for the wasm heap', '{"workload":{"requests":10000000}}', '', '(memory)',
      /^this run could need up to \d+ MB of memory; the WebAssembly build has \d+ MB\. Lower workload\.requests, cluster\.cache_tokens or cluster\.replicas, or run the native command line \(prefixroute\)/],
    ['a trace replay (needs a file)', '{"trace":{"name":"x.jsonl"}}', '', 'trace.name',
      /^the scenario replays trace "x\.jsonl"; runScenario runs only the synthetic workload .*TraceLoader and runTrace\)$/],
  ];
  for (const [name, doc, overrides, field, message] of cases) {
    test(`${name}: validateScenario`, () => fails(pr.validateScenario(doc, overrides), field, message));
    test(`${name}: runScenario`, () => fails(pr.runScenario(doc, overrides, null), field, message));
  }

  test('an unknown key is named', () => {
    const r = pr.validateScenario('{"cluster":{"replica":4}}', '');
    fails(r);
    assert.ok(r.errors.some((e) => e.field.includes('cluster.replica')), JSON.stringify(r.errors));
    fails(r, 'cluster.replica', /^unknown key; allowed keys in cluster: replicas, cache_tokens, /);
  });

  test('every problem is listed, not just the first', () => {
    const r = pr.validateScenario('{"cluster":{"replicas":0,"cache_tokens":-1},"workload":{"zipf_s":99}}', '');
    fails(r);
    const fields = r.errors.map((e) => e.field).sort();
    assert.deepEqual(fields, ['cluster.cache_tokens', 'cluster.replicas', 'workload.zipf_s']);
    const message = Object.fromEntries(r.errors.map((e) => [e.field, e.message]));
    assert.equal(message['cluster.replicas'], 'must be an integer in [1, 4096] (replicas); got 0');
    assert.equal(message['cluster.cache_tokens'], 'must be an integer in [0, 1000000000] (tokens); got -1');
    assert.equal(message['workload.zipf_s'], 'must be a number in [0, 10]; got 99');
  });

  test('an onProgress that is not a function is an error value', () => {
    const form = /^must be a function \(policyIndex, done, total\) => boolean, or null$/;
    fails(pr.runScenario('', '', 42), '(onProgress)', form);
    fails(pr.runScenario('', '', {}), '(onProgress)', form);
  });

  test('hostile text: invalid UTF-16, NUL, huge documents', () => {
    fails(pr.validateScenario('{"seed": "\ud800"}', ''), '(document)', /parse error at line 1, column \d+: /);
    fails(pr.validateScenario('{"a\u0000": 1}', ''), '(document)',
      /parse error at line 1, column 4: .*control character U\+0000 \(NUL\) must be escaped/);
    fails(pr.validateScenario('', '[["seed", "\ud800"]]'), '(overrides)', /^not valid JSON \(.*parse error at line 1, /);
    fails(pr.validateScenario('{"x":"' + 'a'.repeat(2 << 20) + '"}', ''), '(document)',
      /^document is 2097160 bytes; at most 1048576 allowed$/);
    fails(pr.validateScenario('['.repeat(100000), ''), '(document)', /^nesting deeper than 16 levels$/);
    fails(pr.validateScenario('', '['.repeat(100000)), '(overrides)', /^not valid JSON \(nesting deeper than 16 levels\); /);
  });

  test('arguments that are not strings are error values too', () => {
    const notAString = /^scenarioJson must be a string \("" for the reference scenario\)$/;
    fails(pr.runScenario(undefined, '', null), '(document)', notAString);
    fails(pr.runScenario({}, '', null), '(document)', notAString);
    fails(pr.runScenario('', [['seed', '1']], null), '(overrides)', /^overridesJson must be a string \("" for none\)$/);
    const both = pr.validateScenario(42, null);
    fails(both, '(document)', notAString);
    assert.deepEqual(both.errors.map((e) => e.field), ['(document)', '(overrides)']);
  });

  test('the module keeps working after errors', () => {
    const r = pr.runScenario('', '[["workload.requests","500"]]', null);
    assert.equal(r.ok, true);
  });
});

describe('validateScenario on good input', () => {
  test('returns the canonical scenario, every field', () => {
    const r = pr.validateScenario('', '');
    assert.equal(r.ok, true);
    assert.deepEqual(r.errors, []);
    const s = JSON.parse(r.scenarioJson);
    assert.equal(s.schema_version, 1);
    assert.equal(s.cluster.replicas, 4);
    const known = pr.policyCatalogue().map((p) => p.name);
    assert.ok(s.policies.length > 0 && s.policies.every((p) => known.includes(p)));
  });

  test('override values may be given as JSON values, not only text', () => {
    const a = pr.validateScenario('', '[["cluster.replicas", 8], ["policies", ["affinity"]]]');
    const b = pr.validateScenario('', '[["cluster.replicas", "8"], ["policies", "affinity"]]');
    assert.equal(a.ok, true);
    assert.equal(a.scenarioJson, b.scenarioJson);
  });

  test('the canonical text parses back to itself', () => {
    const once = pr.validateScenario('{"workload":{"zipf_s":0.5}}', '[["seed","9"]]');
    const twice = pr.validateScenario(once.scenarioJson, '');
    assert.equal(twice.scenarioJson, once.scenarioJson);
  });
});

describe('metadata', () => {
  test('scenarioSchema is a JSON Schema naming every section', () => {
    const schema = JSON.parse(pr.scenarioSchema());
    assert.equal(schema.type, 'object');
    for (const key of ['seed', 'workload', 'cluster', 'policies']) assert.ok(key in schema.properties, key);
  });

  test('policyCatalogue lists every policy the schema allows, with labels', () => {
    const c = pr.policyCatalogue();
    const names = c.map((p) => p.name);
    for (const seed of ['round_robin', 'least_loaded', 'affinity', 'affinity_balanced']) assert.ok(names.includes(seed), seed);
    assert.deepEqual(names, JSON.parse(pr.scenarioSchema()).properties.policies.items.enum);
    for (const p of c) {
      assert.ok(typeof p.label === 'string' && p.label.length > 0);
      assert.ok(typeof p.description === 'string' && p.description.length > 0, p.name);
      assert.match(p.colours.light, /^#[0-9a-f]{6}$/, p.name);
      assert.match(p.colours.dark, /^#[0-9a-f]{6}$/, p.name);
    }
    assert.equal(new Set(c.map((p) => p.colours.light)).size, c.length, 'every policy has its own colour');
  });

  test('version is the package version', async () => {
    const { default: fs } = await import('node:fs');
    const { ROOT } = await import('./helpers.mjs');
    const pkg = JSON.parse(fs.readFileSync(`${ROOT}/package.json`, 'utf8'));
    assert.equal(pr.version(), pkg.version);
  });
});
