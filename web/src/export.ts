// Downloads of the current results. JSON is exactly the module's results JSON
// (schema "prefixroute.results/1", scenario included), byte for byte what
// `prefixroute-bench --json` writes for the same scenario. CSV has one row
// per policy with the table's columns at full precision, preceded by `#`
// comment lines carrying the schema, the canonical scenario (one-line JSON)
// and the equivalent --set list, so a CSV file can be reproduced
// (pandas: read_csv(path, comment='#')).

import type { Results } from './results';
import type { Pair } from './schema';

export const CSV_COLUMNS = [
  'policy',
  'label',
  'mean_ttft_ms',
  'p50_ttft_ms',
  'p90_ttft_ms',
  'p99_ttft_ms',
  'max_ttft_ms',
  'hit_rate',
  'prefill_tokens',
  'cached_tokens',
  'prompt_tokens',
  'imbalance',
] as const;

function csvCell(value: unknown): string {
  const text = typeof value === 'number' ? String(value) : String(value ?? '');
  // Quote anything with separators or quotes; neutralise spreadsheet formulas.
  const safe = /^[=+\-@\t\r]/.test(text) && typeof value !== 'number' ? `'${text}` : text;
  return /[",\n\r]/.test(safe) ? `"${safe.replace(/"/g, '""')}"` : safe;
}

/** `traceName`: the replayed trace's file, when the results replayed one (the CLI then needs --trace FILE). */
export function resultsToCsv(results: Results, overrides: readonly Pair[], traceName?: string): string {
  const trace = traceName ? ` --trace ${/^[A-Za-z0-9._/-]+$/.test(traceName) ? traceName : `'${traceName.replace(/'/g, "'\\''")}'`}` : '';
  const sets = trace.trimStart() + (trace && overrides.length ? ' ' : '') + overrides.map(([k, v]) => `--set ${k}=${v}`).join(' ');
  const lines = [
    `# ${results.schema}`,
    `# scenario: ${JSON.stringify(results.scenario)}`,
    `# cli: prefixroute-bench${sets ? ` ${sets}` : ''}`,
    `# workload fingerprint: ${results.workload.fingerprint}`,
    CSV_COLUMNS.join(','),
  ];
  for (const r of results.results) {
    lines.push(CSV_COLUMNS.map((c) => csvCell((r as unknown as Record<string, unknown>)[c])).join(','));
  }
  return `${lines.join('\n')}\n`;
}

/** Offers text as a file download (a blob URL, revoked once the click is handled). */
export function download(filename: string, mime: string, text: string): void {
  const url = URL.createObjectURL(new Blob([text], { type: mime }));
  const a = document.createElement('a');
  a.href = url;
  a.download = filename;
  a.rel = 'noopener';
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}

/** A file name that says which trace the results belong to. */
export function exportName(results: Results, ext: 'json' | 'csv'): string {
  const fp = /^[0-9a-f]{1,16}$/.test(results.workload.fingerprint) ? results.workload.fingerprint : 'run';
  return `prefixroute-results-${fp}.${ext}`;
}
