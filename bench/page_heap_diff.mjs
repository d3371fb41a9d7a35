// Which objects the page keeps more of as it re-runs: two heap snapshots of
// the built page (web/dist) in Chromium, after 100 and after 500 re-runs of a
// 300-request scenario, diffed by object kind (bytes and counts). A
// diagnostic for the 1,000-re-run test in tests/e2e/playground.test.mjs
// (docs/RELIABILITY.md).
//
//   node bench/page_heap_diff.mjs [--dist DIR]     (after `npm run build`)
import path from 'node:path';
import { fileURLToPath } from 'node:url';

import { commitAndWaitScript, launchChromium } from '../tests/e2e/harness.mjs';
import { serveStatic } from '../tests/e2e/server.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const args = process.argv.slice(2);
const distArg = args.indexOf('--dist');
const dist = path.resolve(root, distArg >= 0 ? args[distArg + 1] : 'web/dist');
const server = await serveStatic(dist, '/');
const browser = await launchChromium();
try {
  const page = await browser.newPage();
  await page.addInitScript(commitAndWaitScript);
  await page.goto(`${server.url}?v=1&workload.requests=300`);
  await page.waitForFunction(() => Number(document.querySelector('#status')?.dataset.runs ?? '0') >= 1, null, {
    timeout: 120_000,
  });
  const cdp = await page.context().newCDPSession(page);

  /** Re-runs `n` times by committing 300 / 301 requests alternately; waits for each result. */
  const rerun = (n, start) =>
    page.evaluate(
      async ([count, first]) => {
        for (let i = 0; i < count; i++) await window.__commitAndWait('#field-workload-requests', 300 + ((first + i) % 2));
      },
      [n, start],
    );

  /** A heap snapshot after two GCs, as bytes and counts per "type:name" of node. */
  const snapshot = async () => {
    await cdp.send('HeapProfiler.collectGarbage');
    await cdp.send('HeapProfiler.collectGarbage');
    const chunks = [];
    const onChunk = (e) => chunks.push(e.chunk);
    cdp.on('HeapProfiler.addHeapSnapshotChunk', onChunk);
    await cdp.send('HeapProfiler.takeHeapSnapshot', { reportProgress: false });
    cdp.off('HeapProfiler.addHeapSnapshotChunk', onChunk);
    const snap = JSON.parse(chunks.join(''));
    const fields = snap.snapshot.meta.node_fields;
    const [typeAt, nameAt, sizeAt] = ['type', 'name', 'self_size'].map((f) => fields.indexOf(f));
    const types = snap.snapshot.meta.node_types[0];
    const byKind = new Map();
    for (let i = 0; i < snap.nodes.length; i += fields.length) {
      const kind = `${types[snap.nodes[i + typeAt]]}:${String(snap.strings[snap.nodes[i + nameAt]]).slice(0, 60)}`;
      const entry = byKind.get(kind) ?? { count: 0, bytes: 0 };
      entry.count += 1;
      entry.bytes += snap.nodes[i + sizeAt];
      byKind.set(kind, entry);
    }
    return byKind;
  };

  await rerun(100, 0);
  const before = await snapshot();
  await rerun(400, 100);
  const after = await snapshot();
  const grown = [...after]
    .map(([kind, a]) => {
      const b = before.get(kind) ?? { count: 0, bytes: 0 };
      return { kind, count: a.count - b.count, bytes: a.bytes - b.bytes };
    })
    .filter((d) => d.bytes !== 0)
    .sort((x, y) => y.bytes - x.bytes);
  console.log('\n| Object kind (snapshot type:name) | Bytes more after 400 more re-runs | Objects more |\n|---|---|---|');
  for (const d of grown.slice(0, 25)) console.log(`| \`${d.kind}\` | ${d.bytes} | ${d.count} |`);
} finally {
  await browser.close();
  await server.close();
}
