// The console's build and dev server (docs/console.md). `vite build` writes the app to the
// repository's dist/console, which Marquee serves at /app/; `vite` serves it with hot reload
// and proxies /dashboard to a running Marquee (MARQUEE_URL, default http://127.0.0.1:3000), so the
// page and the API share one origin as they do when Marquee serves the build.
import { defineConfig, defaultClientConditions, loadEnv } from 'vite';

export default defineConfig(({ mode }) => {
  const marquee = loadEnv(mode, '.', 'MARQUEE_').MARQUEE_URL ?? 'http://127.0.0.1:3000';
  return {
    base: '/app/',
    // The SDK resolves to its TypeScript sources (its `source` export condition), as in the tests.
    resolve: { conditions: ['source', ...defaultClientConditions] },
    oxc: { jsx: { runtime: 'automatic', importSource: 'preact' } },
    build: {
      // Relative to this package: the repository's dist/, beside the compiled service.
      outDir: '../../dist/console',
      emptyOutDir: true,
      // Every asset a file of its own: the Content-Security-Policy allows no inline script.
      assetsInlineLimit: 0,
      target: 'es2022',
    },
    // The console talks to /dashboard/v1 (docs/dashboard.md); its cookie is the proxied origin's own.
    server: { proxy: { '/dashboard': { target: marquee, changeOrigin: true } } },
  };
});
