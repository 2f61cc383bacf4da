// The coding agent's service worker: it makes the site work offline. Every same-origin GET
// goes to the network first (so a new build is never hidden behind a stale copy) and
// falls back to the copy kept here; the site's files are kept when the worker installs,
// so the first visit is enough. The guest programs are left to the package's own cache.
// Requests to other origins (the model endpoint, granted
// origins) and non-GET requests are never touched.
//
// build.mjs replaces the two placeholders: the build's id and the files it made.
const BUILD = '__BUILD__';
const FILES = __FILES__;
const CACHE = `sandtab-site-${BUILD}`;

self.addEventListener('install', (event) => {
  event.waitUntil(
    caches
      .open(CACHE)
      .then((cache) => cache.addAll(FILES))
      .then(() => self.skipWaiting()),
  );
});

self.addEventListener('activate', (event) => {
  event.waitUntil(
    caches
      .keys()
      .then((keys) => Promise.all(keys.filter((key) => key.startsWith('sandtab-site-') && key !== CACHE).map((key) => caches.delete(key))))
      .then(() => self.clients.claim()),
  );
});

self.addEventListener('fetch', (event) => {
  const request = event.request;
  const url = new URL(request.url);
  if (request.method !== 'GET' || url.origin !== self.location.origin) return;
  // The guest programs (tens of MB) are kept by the package in its own cache, read first:
  // a second copy here would only double the storage.
  if (url.pathname.includes('/guests/')) return;
  event.respondWith(
    fetch(request).then(
      (response) => {
        if (response.ok && response.type === 'basic') {
          const copy = response.clone();
          void caches.open(CACHE).then((cache) => cache.put(request, copy));
        }
        return response;
      },
      async (err) => {
        // Offline: the kept copy (the page's `?sandbox=...` does not make another page).
        const kept = await caches.match(request, { ignoreSearch: request.mode === 'navigate' });
        if (kept) return kept;
        throw err;
      },
    ),
  );
});
