// The bytes of a page's JavaScript values, from a V8 heap snapshot: objects,
// arrays, strings, closures, numbers, shapes, after two full collections.
//
// Runtime.getHeapUsage's usedSize also counts compiled code, which keeps
// growing while V8 optimises and re-optimises the page's functions: on the
// playground's re-run loop it climbs about 0.5-3 KB per re-run for hundreds
// of re-runs (less the longer the loop), with no object of the page's kept.
// A leak of the page is values kept alive; their bytes here move by 0.2-2.5
// KB in all over 150-450 re-runs once the page is warm (the re-run test of
// tests/e2e/playground.test.mjs, four runs on a busy 2-core machine). The
// snapshot's other types are compiled code and Blink's own objects (the DOM,
// which the tests count as elements).

const NOT_JS_VALUES = new Set(['code', 'native', 'synthetic']);

/** { jsValueBytes, usedSize } of the page a CDP session is attached to. */
export async function jsHeap(cdp) {
  await cdp.send('HeapProfiler.collectGarbage');
  await cdp.send('HeapProfiler.collectGarbage');
  const { usedSize } = await cdp.send('Runtime.getHeapUsage');
  const chunks = [];
  const onChunk = (e) => chunks.push(e.chunk);
  cdp.on('HeapProfiler.addHeapSnapshotChunk', onChunk);
  try {
    await cdp.send('HeapProfiler.takeHeapSnapshot', { reportProgress: false });
  } finally {
    cdp.off('HeapProfiler.addHeapSnapshotChunk', onChunk);
  }
  const { snapshot, nodes } = JSON.parse(chunks.join(''));
  const fields = snapshot.meta.node_fields;
  const types = snapshot.meta.node_types[fields.indexOf('type')];
  const typeAt = fields.indexOf('type');
  const sizeAt = fields.indexOf('self_size');
  let jsValueBytes = 0;
  for (let i = 0; i < nodes.length; i += fields.length) {
    if (!NOT_JS_VALUES.has(types[nodes[i + typeAt]])) jsValueBytes += nodes[i + sizeAt];
  }
  return { jsValueBytes, usedSize };
}
