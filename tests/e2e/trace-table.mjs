// A replay's results table read from the page, the same table from the
// command line, and an OpenAI-format log to replay: for the e2e tests that
// compare a replayed trace's numbers with the command line's.
import { benchOutput } from './harness.mjs';

/** The table as { policy: { column: value } } for the columns every run has. */
export const readTable = (page) => page.$$eval('#results-table tbody tr', (rows) => Object.fromEntries(rows.map((tr) => [
  tr.dataset.policy,
  Object.fromEntries(['mean_ttft_ms', 'p99_ttft_ms', 'hit_rate', 'prefill_tokens'].map((c) => [c, Number(tr.querySelector(`td[data-col="${c}"]`).dataset.value)])),
])));

/** `prefixroute --trace FILE` (the command line at `bench`) with these pairs, as the same table. */
export function benchTable(bench, file, sets) {
  const doc = JSON.parse(benchOutput(bench, ['--trace', file], sets));
  return Object.fromEntries(doc.results.map((r) => [r.policy, { mean_ttft_ms: r.mean_ttft_ms, p99_ttft_ms: r.p99_ttft_ms, hit_rate: r.hit_rate, prefill_tokens: r.prefill_tokens }]));
}

/** The link's scenario pairs (not its trace's or sweep's keys): what the page ran, for the command line. */
export const linkSets = (page) => [...new URL(page.url()).searchParams]
  .filter(([k]) => k !== 'v' && k !== 'trace' && k !== 'trace.name' && k !== 'trace.content_hash' && k !== 'trace.url' && k !== 'trace.sha256' && !k.startsWith('sweep.'));

/** An openai log dated by `created` (no timestamp): 24 requests of 4 users sharing a system prompt. */
export function createdLog() {
  const system = { role: 'system', content: 'You answer questions about routing in two sentences, citing the cache.' };
  const lines = [];
  for (let i = 0; i < 24; i++) {
    const user = `u${i % 4}`;
    lines.push(JSON.stringify({
      created: 1767225600 + i * 3,
      model: 'llama-3.1-70b-instruct',
      user,
      messages: [system, { role: 'user', content: `Question ${i} from ${user}: why route by prefix?` }],
      usage: { prompt_tokens: 40, completion_tokens: 30 + i },
    }));
  }
  return `${lines.join('\n')}\n`;
}

/**
 * Confirms the guided import once its dialog states the cluster the file will
 * run on (a file picked or dropped anywhere, the Trace replay panel's picker
 * included, goes there first); fails with the dialog's problem if it shows one.
 */
export async function confirmImport(page) {
  await page.waitForFunction(() => !document.querySelector('#import-cluster').hidden || !document.querySelector('#import-problem').hidden, null, { timeout: 120_000 });
  if (await page.isVisible('#import-problem')) throw new Error(`the import dialog shows a problem: ${await page.textContent('#import-problem')}`);
  await page.click('#import-replay');
}

/** Picks `file` (a path or playwright's { name, mimeType, buffer }) in the Trace replay panel and confirms it in the import dialog. */
export async function pickInPanel(page, file) {
  await page.setInputFiles('#trace-file', file);
  await confirmImport(page);
}
