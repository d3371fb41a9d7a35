// Unit tests of the playground's pure modules (URL state, override
// resolution, CDF, CSV) in Node; the real wasm module is loaded from
// web/src/generated when a test needs the core's validation.
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  root: fileURLToPath(new URL('.', import.meta.url)),
  test: {
    include: ['**/*.test.ts'],
    environment: 'node',
    testTimeout: 30_000,
  },
});
