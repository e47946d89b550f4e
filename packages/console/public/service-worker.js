/* global self, caches */
// The console's offline shell (docs/console.md, "Offline shell"; docs/door.md, "Offline start"):
// lets /app/device load with no network. Scope /app/. Navigations under /app/ go to the
// network first and fall back to the cached index.html (every /app/ screen is that file);
// built assets (/app/assets/…, hashed names) are served from the cache first and cached as
// they are fetched. Nothing else is touched: /v1, /dashboard, /admin and every non-GET
// request always go to the network, so the device app alone decides what no answer means.
const VERSION = 'v1';
const CACHE = `marquee-console-shell-${VERSION}`;
const SHELL = '/app/';

/** The asset URLs index.html references (its module scripts, preloads and stylesheets). */
function assetsOf(html) {
  const urls = new Set();
  for (const match of html.matchAll(/(?:src|href)="(\/app\/assets\/[^"]+)"/g)) urls.add(match[1]);
  return [...urls];
}

self.addEventListener('install', (event) => {
  event.waitUntil(
    (async () => {
      const cache = await caches.open(CACHE);
      const response = await fetch(SHELL, { cache: 'no-cache' });
      if (!response.ok) throw new Error(`The console shell answered ${response.status}.`);
      const html = await response.clone().text();
      await cache.put(SHELL, response);
      await cache.addAll(assetsOf(html));
      await self.skipWaiting();
    })(),
  );
});

self.addEventListener('activate', (event) => {
  event.waitUntil(
    (async () => {
      for (const name of await caches.keys()) if (name !== CACHE) await caches.delete(name);
      await self.clients.claim();
    })(),
  );
});

async function navigate(request) {
  try {
    const response = await fetch(request);
    // A fresh shell replaces the cached one, so the fallback follows the latest build.
    if (response.ok && (response.headers.get('content-type') ?? '').startsWith('text/html')) {
      const cache = await caches.open(CACHE);
      await cache.put(SHELL, response.clone());
    }
    return response;
  } catch (err) {
    const cached = await caches.match(SHELL, { cacheName: CACHE });
    if (cached) return cached;
    throw err;
  }
}

async function asset(request) {
  const cache = await caches.open(CACHE);
  const cached = await cache.match(request);
  if (cached) return cached;
  const response = await fetch(request);
  if (response.ok) await cache.put(request, response.clone());
  return response;
}

self.addEventListener('fetch', (event) => {
  const { request } = event;
  if (request.method !== 'GET') return;
  const url = new URL(request.url);
  if (url.origin !== self.location.origin) return;
  if (request.mode === 'navigate' && url.pathname.startsWith('/app/')) {
    event.respondWith(navigate(request));
  } else if (url.pathname.startsWith('/app/assets/')) {
    event.respondWith(asset(request));
  }
});
