#!/usr/bin/env bash
# Regenerates (--write) or verifies (--check) every figure the repository
# publishes from the command line: docs/results.json, the recommended mark
# core/src/policies/recommended_policy.inc (from docs/grid.json), and in README.md and
# every docs/**/*.md file the sections between <!-- generated:NAME --> and
# <!-- /generated:NAME --> markers (each NAME one generator below, the command
# it runs written beside it) and the code blocks after <!-- example: FILE -->
# (FILE's text). A marker may sit in any of those files; a NAME without a
# generator is an error. --check fails when a committed figure differs from
# what the code produces, so no doc drifts from the command it cites.
#
#   bash scripts/generated-docs.sh --write [BENCH_BINARY]     (npm run docs)
#   bash scripts/generated-docs.sh --check [BENCH_BINARY]
#
# Two sections need more than the build: conversation-trace and deployment
# replay ../shared/traces/mooncake_conversation_trace.jsonl (CONVERSATION_TRACE
# names it elsewhere) and are kept as committed without it; grid renders the
# committed docs/grid.json, which `npm run grid` re-runs, and from the same file
# writes core/src/policies/recommended_policy.inc, the catalogue's recommended
# mark (the policy with the smallest worst-case p99 TTFT regret over the grid).
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
export ROOT
mode=${1:?usage: generated-docs.sh --write|--check [bench-binary]}
bench=${2:-$ROOT/build/native/tools/prefixroute}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

build_dir=$(dirname "$(dirname "$bench")")

# The files that may hold generated sections: README.md and docs/**/*.md.
doc_files() { (cd "$ROOT" && { echo README.md; find docs -name '*.md' | LC_ALL=C sort; }); }
# keep_committed NAME: the section NAME as committed, from whichever doc holds it.
keep_committed() {
  doc_files | (cd "$ROOT" && xargs node -e '
    const fs = require("fs");
    const [name, ...files] = process.argv.slice(1);
    const re = new RegExp("<!-- generated:" + name + " -->\\n([\\s\\S]*?)<!-- /generated:" + name + " -->");
    for (const f of files) { const m = fs.readFileSync(f, "utf8").match(re); if (m) { process.stdout.write(m[1]); break; } }' "$1")
}

# Each generated section's text, from the command the doc shows beside it.
"$bench" --json "$tmp/results.json" --markdown >"$tmp/reference.out"   # npm run bench -- --markdown
grep '^|' "$tmp/reference.out" >"$tmp/reference.md"
# Same scenario, other seeds: how much of the table is one seed's luck.
for seed in 1 2 3 4 5; do
  "$bench" --json "$tmp/seed-$seed.json" --set seed=$seed >/dev/null
done
node - "$tmp" >"$tmp/seeds.md" <<'JS'
const fs = require("fs");
const tmp = process.argv[2];
const runs = [1, 2, 3, 4, 5].map((s) => JSON.parse(fs.readFileSync(`${tmp}/seed-${s}.json`, "utf8")));
let out = "| Policy | " + runs.map((r) => `seed ${r.scenario.seed}`).join(" | ") + " |\n";
out += "|---|" + runs.map(() => "---|").join("") + "\n";
for (const [i, row] of runs[0].results.entries()) {
  const cells = runs.map((r) => {
    const x = r.results[i];
    return `${x.mean_ttft_ms.toFixed(1)} / ${x.p99_ttft_ms.toFixed(1)} ms, ${(x.hit_rate * 100).toFixed(1)}%`;
  });
  out += `| ${row.label} | ${cells.join(" | ")} |\n`;
}
process.stdout.write(out);
JS
# Those five seeds as replicates: means, 95 % intervals, what is not distinguishable.
"$bench" --json '' --markdown --set seed=1 --set replicates=5 | sed -n '/^| Policy/,$p' >"$tmp/replicates.md"   # npm run bench -- --set seed=1 --set replicates=5 --markdown

# Every policy on the reference scenario, and the recommended-policy check on three presets.
"$bench" --json '' --markdown --set policies=all | grep '^|' >"$tmp/all-policies.md"   # npm run bench -- --set policies=all --markdown
for preset in reference one-hot-tenant overloaded; do
  "$bench" --json "$tmp/preset-$preset.json" --scenario "$ROOT/scenarios/$preset.json" --set policies=all >/dev/null
done
node - "$tmp" >"$tmp/presets.md" <<'JS'
const fs = require("fs");
const tmp = process.argv[2];
const presets = ["reference", "one-hot-tenant", "overloaded"];
const runs = presets.map((p) => JSON.parse(fs.readFileSync(`${tmp}/preset-${p}.json`, "utf8")));
let out = "| Policy | " + presets.map((p) => `${p}: p99 TTFT / prefill tokens`).join(" | ") + " |\n";
out += "|---|" + presets.map(() => "---|").join("") + "\n";
for (const [i, row] of runs[0].results.entries()) {
  const cells = runs.map((r) => {
    const x = r.results[i];
    return `${x.p99_ttft_ms.toFixed(1)} ms / ${x.prefill_tokens.toLocaleString("en-US")}`;
  });
  out += `| ${row.label} | ${cells.join(" | ")} |\n`;
}
process.stdout.write(out);
JS

# The failure-mode presets: each preset's policies, and the fix's setting (tests/failure_modes.json).
node - "$ROOT" "$bench" "$tmp" >"$tmp/failure-modes.md" <<'JS'
const fs = require("fs");
const { execFileSync } = require("child_process");
const [root, bench, tmp] = process.argv.slice(2);
const manifest = JSON.parse(fs.readFileSync(`${root}/tests/failure_modes.json`, "utf8"));
const run = (args) => {
  execFileSync(bench, [...args, "--json", `${tmp}/failure-mode.json`], { cwd: root, stdio: "ignore" });
  return JSON.parse(fs.readFileSync(`${tmp}/failure-mode.json`, "utf8"));
};
const metricName = { p99_ttft_ms: "p99 TTFT", mean_ttft_ms: "mean TTFT" };
const setText = (set) => Object.entries(set).map(([k, v]) => `\`${k}=${v}\``).join(", ");
let out = "| Preset | Metric | Failing policy | Fix | Other policies in the preset |\n|---|---|---|---|---|\n";
for (const mode of manifest.modes) {
  const file = `scenarios/${mode.preset}`;
  const preset = run(["--scenario", file]);
  const fixSet = Object.entries(mode.fix.set).flatMap(([k, v]) => ["--set", `${k}=${v}`]);
  const fixDoc = Object.keys(mode.fix.set).length ? run(["--scenario", file, ...fixSet, "--set", `policies=${mode.fix.policy}`]) : preset;
  const row = (doc, policy) => doc.results.find((r) => r.policy === policy);
  const failing = row(preset, mode.failing.policy);
  const fix = row(fixDoc, mode.fix.policy);
  const m = mode.metric;
  const others = preset.results.filter((r) => r.policy !== mode.failing.policy && r.policy !== mode.fix.policy)
    .map((r) => `${r.label} ${r[m].toFixed(1)} ms`).join("; ");
  const fixName = Object.keys(mode.fix.set).length ? `${fix.label}, ${setText(mode.fix.set)}` : fix.label;
  out += `| \`${mode.preset.replace(/\.json$/, "")}\` | ${metricName[m]} | ${failing.label}: ${failing[m].toFixed(1)} ms | ` +
    `${fixName}: ${fix[m].toFixed(1)} ms (${(failing[m] / fix[m]).toFixed(2)}x better; stated: ${mode.margin}x) | ${others} |\n`;
}
process.stdout.write(out);
JS

# The recommended policy against every policy over the grid: rendered from the
# committed docs/grid.json, which `npm run grid` (scripts/grid.mjs) writes.
node "$ROOT/scripts/grid_table.mjs" "$ROOT/docs/grid.json" >"$tmp/grid.md"
# The catalogue's recommended mark and its regret, generated from the same grid.
node "$ROOT/scripts/grid_regret.mjs" "$ROOT/docs/grid.json" --header >"$tmp/recommended_policy.inc"
recommended_inc=core/src/policies/recommended_policy.inc
node "$ROOT/scripts/grid_regret.mjs" "$ROOT/docs/grid.json" --line >"$tmp/recommended.md"

# The other workload kinds, every policy, on 32,000-token caches.
for kind in sessions agentic gsp; do   # npm run bench -- --set workload.kind=KIND --set cluster.cache_tokens=32000 --set policies=all --markdown
  "$bench" --json '' --markdown --set workload.kind=$kind --set cluster.cache_tokens=32000 --set policies=all |
    grep '^|' >"$tmp/kind-$kind.md"
done

# The prompt-pool presets with the four baseline policies.
for pool in shared-prefix prefix-repetition cumulative; do   # npm run bench -- --scenario scenarios/POOL.json --markdown
  "$bench" --json '' --markdown --scenario "$ROOT/scenarios/$pool.json" | grep '^|' >"$tmp/pool-$pool.md"
done
# A closed-loop client's load ladder on the shared-prefix pool, Llama-3.1-8B on one H100 per replica:
# the per-stage table (docs/guide/clients-and-stages.md has the command).
"$bench" --json '' --markdown --scenario "$ROOT/scenarios/shared-prefix.json" --set cluster.engine=batched \
  --set hardware.model=llama-3.1-8b --set hardware.gpu=h100 --set workload.requests=20000 \
  --set client.kind=closed --set client.warmup=8x5 --set client.stages=8x20,32x20,128x20 \
  --set policies=round_robin,dynamo_kv,expected_ttft | sed -n '/^| Policy | Stage/,/^$/p' | grep '^|' >"$tmp/stages.md"

# The real trace, when the shared folder is beside the repository (as in CI).
# (CONVERSATION_TRACE names it elsewhere, e.g. from a worktree whose parent has no shared/.)
trace_file="${CONVERSATION_TRACE:-$ROOT/../shared/traces/mooncake_conversation_trace.jsonl}"
if [ -f "$trace_file" ]; then
  "$bench" --json '' --markdown --trace "$trace_file" --set cluster.replicas=8 \
    --set cluster.cache_tokens=1000000 --set policies=all | grep '^|' >"$tmp/conversation-trace.md"
else
  keep_committed conversation-trace >"$tmp/conversation-trace.md"
fi
# docs/guide/capacity.md: the capacity search on the reference scenario, p99 TTFT <= 2 s, three seeds.
{ echo '```text'; "$bench" --json '' --capacity --set slo.ttft_ms=2000 --set capacity.gpu_hour_price=2.5 \
    --set replicates=3; echo '```'; } >"$tmp/capacity.md"   # npm run bench -- --capacity --set slo.ttft_ms=2000 ...
"$bench" --fields >"$tmp/fields.md"     # npm run bench -- --fields
"$bench" --policies >"$tmp/policies.md" # npm run bench -- --policies
{ echo '```text'; "$build_dir/examples/quickstart"; echo '```'; } >"$tmp/quickstart-output.md"

# docs/design/model.md: the hardware presets against published measurements: three tables, one blank line apart.
"$bench" --step-table >"$tmp/step-tables.md"                      # npm run bench -- --step-table
awk -v dir="$tmp" 'BEGIN{split("step-table capacity-table calibration-table", name, " "); t=1}
  /^$/{t++; next} {print > (dir "/" name[t] ".md")}' "$tmp/step-tables.md"

# One realistic deployment on the conversation trace (when the trace is beside the repository).
if [ -f "$trace_file" ]; then
  "$bench" --json '' --markdown --trace "$trace_file" --set cluster.replicas=8 --set cluster.engine=batched \
    --set hardware.model=llama-3.1-70b --set hardware.gpu=h100 --set hardware.tp=4 --set policies=all \
    | grep '^|' >"$tmp/deployment.md"
  "$bench" --hardware --set cluster.engine=batched --set hardware.model=llama-3.1-70b --set hardware.gpu=h100 \
    --set hardware.tp=4 | node -e 'const d=JSON.parse(require("fs").readFileSync(0,"utf8"));process.stdout.write(d.text+".\n")' \
    >"$tmp/deployment-line.md"
else
  for name in deployment deployment-line; do keep_committed "$name" >"$tmp/$name.md"; done
fi

render() {  # $1 (a path under ROOT) with every generated section and example replaced by fresh output
  node - "$ROOT/$1" "$tmp" "$1" <<'JS'
const fs = require("fs");
const [docPath, tmp, name] = process.argv.slice(2);
const doc = fs.readFileSync(docPath, "utf8");
let out = doc.replace(/(<!-- example: ([\w./-]+) -->\n)```(\w+)\n[\s\S]*?```/g,
  (_, marker, file, lang) => `${marker}\`\`\`${lang}\n${fs.readFileSync(`${process.env.ROOT}/${file}`, "utf8")}\`\`\``);
out = out.replace(/<!-- generated:([\w-]+) -->\n[\s\S]*?<!-- \/generated:\1 -->/g, (_, section) => {
  const file = `${tmp}/${section}.md`;
  if (!fs.existsSync(file)) {
    console.error(`${name}: no generator for <!-- generated:${section} --> (scripts/generated-docs.sh)`);
    process.exit(3);
  }
  return `<!-- generated:${section} -->\n${fs.readFileSync(file, "utf8")}<!-- /generated:${section} -->`;
});
process.stdout.write(out);
JS
}

needs_note() {  # what the sections kept as committed would need to be regenerated
  [ -f "$trace_file" ] || echo "note: conversation-trace and deployment kept as committed: they replay $trace_file (absent; CONVERSATION_TRACE=FILE names it elsewhere)" >&2
  echo "note: grid and the recommended mark render the committed docs/grid.json; npm run grid re-runs the grid (minutes: every policy in each cell, and the capacity searches) and rewrites it" >&2
}

case "$mode" in
  --write)
    mkdir -p "$ROOT/docs"
    cp "$tmp/results.json" "$ROOT/docs/results.json"
    if ! cmp -s "$tmp/recommended_policy.inc" "$ROOT/$recommended_inc"; then
      cp "$tmp/recommended_policy.inc" "$ROOT/$recommended_inc"
      echo "updated $recommended_inc: rebuild, then npm run docs again (results echo the recommended policy)"
    fi
    for doc in $(doc_files); do
      render "$doc" >"$tmp/rendered.md"
      if ! cmp -s "$tmp/rendered.md" "$ROOT/$doc"; then cp "$tmp/rendered.md" "$ROOT/$doc"; echo "updated $doc"; fi
    done
    echo "generated sections and docs/results.json are up to date"
    needs_note
    ;;
  --check)
    status=0
    if ! cmp -s "$tmp/results.json" "$ROOT/docs/results.json"; then
      echo "docs/results.json is stale: run npm run docs" >&2; status=1
    fi
    if ! cmp -s "$tmp/recommended_policy.inc" "$ROOT/$recommended_inc"; then
      echo "$recommended_inc does not match docs/grid.json's recommendation: run npm run docs" >&2
      diff "$ROOT/$recommended_inc" "$tmp/recommended_policy.inc" >&2 || true
      status=1
    fi
    for doc in $(doc_files); do
      render "$doc" >"$tmp/rendered.md" || { status=1; continue; }
      if ! cmp -s "$tmp/rendered.md" "$ROOT/$doc"; then
        echo "$doc: generated sections are stale: run npm run docs" >&2
        diff "$ROOT/$doc" "$tmp/rendered.md" >&2 || true
        status=1
      fi
    done
    [ $status -eq 0 ] && echo "generated docs are up to date"
    exit $status
    ;;
  *) echo "unknown mode $mode" >&2; exit 2 ;;
esac
