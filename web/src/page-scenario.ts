// What the bare page runs (page-defaults.json, "scenario"): the reference
// scenario with the policies a reader deciding what to deploy compares,
// rather than the core's four baselines. They are:
//   - round robin: what a plain Kubernetes Service or load balancer does (the
//     baseline the table's small figures compare with);
//   - affinity balanced: the write-up's policy the reference scenario was
//     calibrated on;
//   - the recommended policy (the catalogue's mark, when the module carries
//     one; else page-defaults.json's recommendedFallback, Expected TTFT);
//   - the three production routers a team is most likely to run: SGLang's
//     cache-aware router (sgl-router / SGLang model gateway), NVIDIA Dynamo's
//     KV router, and llm-d's endpoint picker (the Gateway API Inference
//     Extension path on Kubernetes).
// One replicate: with three seeds the default re-run does not fit the page's
// 100 ms re-run budget (docs/PERFORMANCE.md, `node bench/page_perf.mjs --query`),
// so the verdict says it is one seed. The presets run with the same policies.
// A link is read as written: these apply only to the page opened bare (no
// key but `v` and `embed`) and to the presets.

import pageDefaults from './page-defaults.json';
import type { PolicyInfo } from './prefixroute-module';
import type { Pair } from './schema';

/** The recommended policy: the catalogue's mark when it carries one, else the page's fallback. */
export function recommendedPolicy(catalogue: readonly PolicyInfo[]): string {
  const marked = catalogue.find((p) => (p as PolicyInfo & { recommended?: unknown }).recommended === true);
  return marked?.name ?? pageDefaults.recommendedFallback;
}

/** The page's scenario as overrides, with the recommended policy in place of the fallback when they differ. */
export function pageScenario(catalogue: readonly PolicyInfo[]): Pair[] {
  const recommended = recommendedPolicy(catalogue);
  const names = pageDefaults.scenario.policies.split(',')
    .map((p) => (p === pageDefaults.recommendedFallback ? recommended : p))
    .filter((p, i, all) => all.indexOf(p) === i);
  return [['policies', names.join(',')], ['replicates', pageDefaults.scenario.replicates]];
}

/** A preset's overrides over the page's scenario (a preset that names policies keeps its own). */
export function withPageScenario(catalogue: readonly PolicyInfo[], overrides: readonly Pair[]): Pair[] {
  const map = new Map<string, string>(pageScenario(catalogue));
  for (const [k, v] of overrides) map.set(k, v);
  return [...map];
}

/**
 * The overrides a link carries for a scenario: as given, except that the
 * core's own defaults on the synthetic workload (no override at all) are
 * written out as their policy list, since a bare link opens the page's
 * scenario instead.
 */
export function linkOverrides(overrides: readonly Pair[], replaysTrace: boolean, policiesDefault: string): Pair[] {
  if (overrides.length > 0 || replaysTrace) return [...overrides];
  return [['policies', policiesDefault]];
}

/** Whether a page address is bare (no keys but the link version and the embed flag): it opens the page's scenario. */
export function opensPageScenario(search: string): boolean {
  return [...new URLSearchParams(search).keys()].every((k) => k === 'v' || k === 'embed');
}
