// @ts-check
// Run by index.html before the page's modules are fetched (a classic script: a built site
// inlines it): the downloads a shared link waits for start at once rather than after the
// page's scripts have loaded and run. The core's download and compilation (its address is
// the script's data-core), and, when the address is a link to a file of a hosted archive
// (#archive=LISTING&path=FILE), the listing and then that file. The page takes them up from
// `globalThis.relicviewEarly` (core.js, hosted.js) and does again whatever failed here.
(() => {
  const script = document.currentScript;
  /** @type {EarlyDownloads} */
  const early = {};
  globalThis.relicviewEarly = early;
  /** @param {string} what @param {string} url @param {Response} r */
  const fail = (what, url, r) => new Error(`${url}: HTTP ${r.status} for ${what}`);
  if (script?.dataset.core) {
    const url = new URL(script.dataset.core, location.href).href;
    early.core = (async () => {
      // The core is kept in the browser's Cache Storage for the next visit, by its address:
      // a built site names it by its content, so what is kept under an address is never
      // stale; a new build's core replaces the old one there. (Where there is no Cache
      // Storage, a plain http: page on another host, the HTTP cache alone keeps it.)
      const store = globalThis.caches ? await caches.open('relicview-core').catch(() => null) : null;
      let response = store ? await store.match(url).catch(() => null) : null;
      if (!response) {
        response = await fetch(url);
        if (!response.ok) throw fail('the core', url, response);
        if (store) {
          const kept = response.clone();
          store
            .put(url, kept)
            .then(() => store.keys())
            .then(keys => Promise.all(keys.filter(k => k.url !== url).map(k => store.delete(k))))
            .catch(() => {});
        }
      }
      return /^application\/wasm\b/.test(response.headers.get('Content-Type') || '')
        ? WebAssembly.compileStreaming(response)
        : WebAssembly.compile(await response.arrayBuffer());
    })();
    early.core.catch(() => {});
  }
  const link = new URLSearchParams(location.hash.slice(1));
  const archive = link.get('archive');
  if (!archive) return;
  const listingUrl = new URL(archive, location.href).href;
  // (Its bytes are the core's to read, once it is up; the few fields taken here for the
  // early fetches are read as loosely as a hostile listing allows.)
  const bytes = fetch(listingUrl).then(r => (r.ok ? r.arrayBuffer() : null));
  early.listing = { url: listingUrl, bytes };
  bytes.catch(() => {});
  const listing = bytes.then(b => (b ? JSON.parse(new TextDecoder().decode(b)) : null));
  listing.catch(() => {});
  const path = link.get('path');
  if (!path || link.get('compare')) return;
  // The linked file and what its open reads (the index's `refs`), loose files of the
  // listing fetched as hosted.js fetches them (their addresses made as files.js makes them),
  // all at once. Files from 16 MiB on open in the parsing worker, which fetches them itself
  // (state.js's workerThreshold), and entries of containers are read by range: those are
  // left to the page. → early.files: [{path, size, fetched: Promise of {url, buffer}}].
  const WHOLE_AT_MOST = 16 << 20;
  early.files = [];
  const files = listing.then(json => {
    /** @type {ListingRow[]} */
    const rows = json && Array.isArray(json.files) ? json.files : [];
    const byPath = new Map(
      rows.filter(f => f && typeof f.path === 'string').map(f => [f.path.toLowerCase(), f]),
    );
    const file = byPath.get(path.toLowerCase());
    if (!file || typeof file.failure === 'string') return [];
    const refs = Array.isArray(file.refs)
      ? file.refs
          .slice(0, 256)
          .map(r => byPath.get(String(r).toLowerCase()))
          .filter(f => f !== undefined)
      : [];
    const base = new URL(typeof json.base === 'string' ? json.base : '', listingUrl);
    return [file, ...refs]
      .filter(f => Number(f.size) < WHOLE_AT_MOST)
      .map(f => {
        const url = new URL(f.path.split('/').map(encodeURIComponent).join('/'), base).href;
        return { path: f.path, size: Number(f.size), url };
      });
  });
  // (The page takes the list once it has it: hosted.js waits for none of these.)
  files.then(
    list => {
      if (!early.files) return;
      for (const { path: p, size, url } of list) {
        const fetched = fetch(url).then(r => {
          if (!r.ok) throw fail(p, url, r);
          return r.arrayBuffer().then(buffer => ({ url, buffer }));
        });
        fetched.catch(() => {});
        early.files.push({ path: p, size, fetched });
      }
    },
    () => {},
  );
})();
