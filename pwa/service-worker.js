// Tessera's service worker (served as /sw.js; the build writes BUILD, PRECACHE and BACKEND in).
//
// * Precaches the build's shell: the files the landing screen loads (content-hashed), the
//   offline screen, the manifest and the icons, in a cache named after the build; other hashed
//   files (the game screen) join that cache when first loaded. Hashed files never change, so
//   they are answered from the cache first; the cache of an older build is deleted once this one
//   is active.
// * Pages (navigations) always go to the network first, so a reload after a deploy gets the new
//   page, which names only the new build's hashed files: a new build takes over on the next
//   load and never mixes with the old one. Without a network a page is answered with the
//   offline screen, which reconnects by itself.
// * Everything else passes through untouched: /config.json, /rest, /auth, /realtime and any
//   other request are never cached.
const BUILD = '__BUILD__';
const PRECACHE = __PRECACHE__;
const CACHE = `tessera-${BUILD}`;
const OFFLINE = '/offline.html';
const precached = new Set(PRECACHE);

/**
 * Paths the worker never sees where the browser supports static routes: the configuration and
 * the API go straight to the network, so even a request sent while the page unloads (the
 * keep-alive DELETE of the player's presence row) is not held up by waking the worker.
 */
const NETWORK_ONLY = ['/config.json', '/rest/*', '/auth/*', '/realtime/*'].map((pathname) => ({ pathname }));
/** A hosted build's backend (its Supabase URL), whose every path goes to the network too; null on the embedded server. */
const BACKEND = __BACKEND__;
if (BACKEND) NETWORK_ONLY.push({ baseURL: BACKEND, pathname: '*' });

self.addEventListener('install', (event) => {
  if (typeof event.addRoutes === 'function' && typeof URLPattern === 'function') {
    event.waitUntil(event.addRoutes(NETWORK_ONLY.map((init) => ({ condition: { urlPattern: new URLPattern(init) }, source: 'network' }))));
  }
  event.waitUntil(
    caches.open(CACHE)
      .then((cache) => cache.addAll(PRECACHE.map((url) => new Request(url, { cache: 'reload' }))))
      .then(() => self.skipWaiting()),
  );
});

self.addEventListener('activate', (event) => {
  event.waitUntil(
    caches.keys()
      .then((names) => Promise.all(names.filter((name) => name.startsWith('tessera-') && name !== CACHE).map((name) => caches.delete(name))))
      .then(() => self.clients.claim()),
  );
});

/** A page: the network's answer, else the offline screen. */
async function page(request) {
  try {
    return await fetch(request);
  } catch {
    return (await caches.match(OFFLINE, { cacheName: CACHE })) ?? Response.error();
  }
}

/** A precached or hashed file: the cache's copy, else the network's (kept when it is a hashed asset). */
async function asset(request, url) {
  const cached = await caches.match(request, { cacheName: CACHE });
  if (cached) return cached;
  const response = await fetch(request);
  if (response.ok && url.pathname.startsWith('/assets/')) {
    const copy = response.clone();
    caches.open(CACHE).then((cache) => cache.put(request, copy));
  }
  return response;
}

self.addEventListener('fetch', (event) => {
  const { request } = event;
  if (request.method !== 'GET') return;
  const url = new URL(request.url);
  if (url.origin !== self.location.origin) return;
  if (request.mode === 'navigate') {
    event.respondWith(page(request));
    return;
  }
  if (url.pathname.startsWith('/assets/') || (precached.has(url.pathname) && url.pathname !== '/')) event.respondWith(asset(request, url));
});
