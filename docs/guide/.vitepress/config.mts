// VitePress configuration of the guide site: docs/guide/*.md built into
// web/dist/guide/, published with the playground (scripts/build-guide.sh,
// .github/workflows/pages.yml). The Markdown stays GitHub's: README.md is the
// site's index, and a link leaving the guide (../reference/..., ../design/...)
// points at the file in the repository when the build knows it (GitHub
// Actions sets GITHUB_SERVER_URL and GITHUB_REPOSITORY), else stays as
// written. Multi-page mode: plain HTML pages, no client-side router, so
// scripts/build-guide.sh can make every address relative and the site works
// under any sub-path, as the playground does (VitePress itself wants an
// absolute base).
import { defineConfig } from 'vitepress';

/** The placeholder base scripts/build-guide.sh replaces with relative paths. */
const BASE = '/__prefixroute_guide__/';

/** The repository's files on GitHub, when the build runs there ('' elsewhere). */
const repoFiles =
  process.env.GITHUB_SERVER_URL && process.env.GITHUB_REPOSITORY
    ? `${process.env.GITHUB_SERVER_URL}/${process.env.GITHUB_REPOSITORY}/blob/${process.env.GITHUB_SHA || 'main'}/docs/`
    : '';

/** The guide's pages in the order of its README (the site's sidebar). */
const pages: [string, string][] = [
  ['Scenarios and the command line', 'scenarios'],
  ['Production routers side by side', 'routers'],
  ['Traffic', 'traffic'],
  ['Benchmark clients and load stages', 'clients-and-stages'],
  ['Replaying a real trace', 'traces'],
  ['Your model on your GPUs', 'hardware'],
  ['How many GPUs for your SLO', 'capacity'],
  ['Published results, reproduced', 'published-results'],
  ['Sweeps', 'sweeps'],
  ['A run over time: the timeline', 'timeline'],
  ['Every core, many seeds, many machines', 'seeds-and-machines'],
  ['Embedding the playground in a page', 'embedding'],
];

export default defineConfig({
  title: 'prefixroute guide',
  description: 'Prefix-cache-aware routing for multi-replica LLM serving: the guide, with the playground embedded.',
  base: BASE,
  outDir: '../../web/dist/guide',
  cacheDir: '../../build/vitepress-cache',
  mpa: true,
  cleanUrls: false,
  rewrites: { 'README.md': 'index.md' },
  // The playground's icon (without one the browser asks the host's root for /favicon.ico).
  head: [['link', { rel: 'icon', type: 'image/svg+xml', href: `${BASE}../favicon.svg` }]],
  // Links leaving the guide are to the repository's other docs (not part of the site).
  ignoreDeadLinks: [/^(\.\/)?\.\.\//],
  markdown: {
    config(md) {
      // A live embed: a fenced block `html prefixroute-embed` holds the Embed
      // box's <iframe>. GitHub shows it as the snippet's code (and checks no
      // link in it); the site shows the code and, under it, the frame itself.
      const fence = md.renderer.rules.fence!;
      md.renderer.rules.fence = (tokens, idx, options, env, self) => {
        const token = tokens[idx];
        if (!/\bprefixroute-embed\b/.test(token.info)) return fence(tokens, idx, options, env, self);
        token.info = 'html';
        const code = fence(tokens, idx, options, env, self);
        return `${code}<div class="prefixroute-embed">${token.content}</div>\n`;
      };
      if (!repoFiles) return;
      md.core.ruler.push('prefixroute-repo-links', (state) => {
        for (const token of state.tokens) {
          for (const child of token.children ?? []) {
            if (child.type !== 'link_open') continue;
            const href = child.attrGet('href');
            if (href?.startsWith('../')) child.attrSet('href', repoFiles + href.slice(3));
          }
        }
      });
    },
  },
  themeConfig: {
    nav: [
      { text: 'Playground', link: '/../index.html', target: '_self' },
      { text: 'Guide', link: '/' },
    ],
    sidebar: [{ text: 'Guide', items: [{ text: 'Overview', link: '/' }, ...pages.map(([text, page]) => ({ text, link: `/${page}.html` }))] }],
    outline: { level: [2, 3] },
  },
});
