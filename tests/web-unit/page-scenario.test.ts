// What the bare page runs, and how its link stays unambiguous.
import { describe, expect, it } from 'vitest';
import { linkOverrides, MAX_PAGE_POLICIES, opensPageScenario, pageScenario, recommendedPolicy, withPageScenario } from '../../web/src/state/page-scenario';
import type { PolicyInfo } from '../../web/src/worker/prefixroute-module';
import { loadCore } from './core';

const info = (name: string, recommended?: boolean) => ({ name, label: name, description: '', colours: { light: '', dark: '' }, params: [], ...(recommended ? { recommended } : {}) }) as PolicyInfo;

describe('the page scenario', () => {
  it('runs the four baselines, the recommended policy and the production routers, every one in the module’s catalogue', async () => {
    const catalogue = (await loadCore()).policyCatalogue();
    const [[key, policies], [rkey, replicates]] = pageScenario(catalogue);
    expect([key, rkey, replicates]).toEqual(['policies', 'replicates', '1']);
    const names = policies.split(',');
    expect(names).toContain(recommendedPolicy(catalogue));
    for (const p of ['round_robin', 'least_loaded', 'affinity', 'affinity_balanced', 'sglang_cache_aware', 'dynamo_kv', 'llmd_epp']) expect(names).toContain(p);
    expect(names.length).toBeLessThanOrEqual(MAX_PAGE_POLICIES);
    expect(new Set(names).size).toBe(names.length);
    for (const p of names) expect(catalogue.map((c) => c.name)).toContain(p);
  });

  it('takes the catalogue’s recommended mark', () => {
    expect(recommendedPolicy([info('a'), info('expected_ttft')])).toBeUndefined();
    expect(recommendedPolicy([info('a'), info('b', true)])).toBe('b');
    // The mark takes `@recommended`'s place, whichever policy it is; one already named runs once.
    const names = pageScenario([info('b', true)])[0][1].split(',');
    expect(names.indexOf('b')).toBe(names.indexOf('affinity_balanced') + 1);
    const marked = pageScenario([info('affinity_balanced', true)])[0][1].split(',');
    expect(marked.filter((p) => p === 'affinity_balanced')).toHaveLength(1);
    expect(marked).not.toContain('@recommended');
  });

  it('applies to a bare address and the presets, never under a link’s keys', () => {
    expect(opensPageScenario('')).toBe(true);
    expect(opensPageScenario('?v=1')).toBe(true);
    expect(opensPageScenario('?v=1&embed=1')).toBe(true);
    expect(opensPageScenario('?v=1&seed=7')).toBe(false);
    expect(opensPageScenario('?v=1&sweep.param=seed')).toBe(false);
    expect(withPageScenario([], [['policies', 'affinity'], ['seed', '3']])).toEqual([['policies', 'affinity'], ['replicates', '1'], ['seed', '3']]);
  });

  it('writes the core’s default policies out when a scenario has no override, since a bare link means the page’s', () => {
    expect(linkOverrides([], false, 'round_robin,least_loaded')).toEqual([['policies', 'round_robin,least_loaded']]);
    expect(linkOverrides([], true, 'round_robin,least_loaded')).toEqual([]);
    expect(linkOverrides([['seed', '7']], false, 'x')).toEqual([['seed', '7']]);
  });
});
