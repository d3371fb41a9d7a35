// The module exports exactly what wasm/prefixroute.d.ts declares: every
// embind function and class, and every method of each class.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { before, test } from 'node:test';

import { ROOT, loadModule } from './helpers.mjs';

const dts = fs.readFileSync(path.join(ROOT, 'wasm/prefixroute.d.ts'), 'utf8');

/** Member names of `export interface NAME ... { ... }` in the declarations. */
function declaredMembers(name) {
  const m = dts.match(new RegExp(`export interface ${name}\\b[^{]*\\{([\\s\\S]*?)\\n\\}`));
  assert.ok(m, `interface ${name} not found in prefixroute.d.ts`);
  const body = m[1].replace(/\/\*[\s\S]*?\*\//g, '').replace(/\/\/.*$/gm, '');
  return [...body.matchAll(/^\s{2}(\w+)\??\s*[(:]/gm)].map((x) => x[1]).sort();
}

/** Methods a class offers, its bases' included, minus embind's handle methods. */
function methodsOf(Class) {
  const handleMethods = new Set(['constructor', 'isAliasOf', 'clone', 'delete', 'isDeleted', 'deleteLater']);
  const names = new Set();
  for (let proto = Class.prototype; proto && proto !== Object.prototype; proto = Object.getPrototypeOf(proto))
    for (const n of Object.getOwnPropertyNames(proto)) if (!handleMethods.has(n)) names.add(n);
  return [...names].sort();
}

let pr;
before(async () => {
  pr = await loadModule();
});

test('the module exports exactly the declared functions and classes', () => {
  const isEmbind = (v) => typeof v === 'function' && (v.argCount !== undefined || typeof v.prototype?.isDeleted === 'function');
  const exported = Object.keys(pr).filter((k) => isEmbind(pr[k])).sort();
  assert.deepEqual(exported, declaredMembers('PrefixrouteModule'));
});

test('functions take the declared number of arguments', () => {
  assert.equal(pr.runScenario.argCount, 3);
  assert.equal(pr.validateScenario.argCount, 2);
  assert.equal(pr.hardwareSummary.argCount, 2);
  assert.equal(pr.runShard.argCount, 5);
  assert.equal(pr.mergeShards.argCount, 1);
  assert.equal(pr.runTraceShard.argCount, 6);
  assert.equal(pr.runTraceSweep.argCount, 5);
  assert.equal(pr.runSweepShard.argCount, 6);
  assert.equal(pr.mergeSweepShards.argCount, 1);
  assert.equal(pr.runCapacity.argCount, 3);
  assert.equal(pr.runTraceCapacity.argCount, 4);
  for (const f of ['scenarioSchema', 'policyCatalogue', 'version']) assert.equal(pr[f].argCount, 0, f);
});

test('each class has exactly the declared methods', () => {
  const classes = {
    RadixCache: 'RadixCache',
    Cluster: 'Cluster',
    RoutingPolicy: 'RoutingPolicy',
    RoundRobin: 'RoutingPolicy',
    LeastLoaded: 'RoutingPolicy',
    Affinity: 'RoutingPolicy',
    AffinityBalanced: 'AffinityBalanced',
  };
  const inherited = { AffinityBalanced: declaredMembers('RoutingPolicy') };
  for (const [cls, iface] of Object.entries(classes)) {
    const declared = [...declaredMembers(iface), ...(inherited[iface] ?? [])].sort();
    assert.deepEqual(methodsOf(pr[cls]), declared, cls);
  }
});

test('every class is guarded by post.js (library errors are thrown from JS)', () => {
  for (const cls of ['RadixCache', 'Cluster', 'RoutingPolicy', 'RoundRobin', 'LeastLoaded', 'Affinity', 'AffinityBalanced'])
    assert.equal(pr[cls].name, cls, `${cls} is the raw embind constructor: post.js did not run`);
});

test('the policies share the RoutingPolicy base', () => {
  for (const cls of ['RoundRobin', 'LeastLoaded', 'Affinity', 'AffinityBalanced']) {
    const p = new pr[cls]();
    assert.ok(p instanceof pr.RoutingPolicy, cls);
    p.delete();
  }
  assert.throws(() => new pr.RoutingPolicy());
});
