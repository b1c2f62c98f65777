// @ts-check
// The archive's listing, broadcast to every instance that keeps one in its own memory: the
// core's session on this thread (recovery.js), the parsing worker's (opener.js), and the
// thumbnail worker's, which asks for the current one (thumbnails.js). (The tools module keeps
// none: the core opens what it works on.)
// listing.js says what the listing is; each holder says how its instance takes it, and is
// given the current listing when it joins (a new instance after a trap, a worker started
// late), so that no instance is handed it by hand.

/**
 * How an instance takes the listing: all of it, new kinds for the same paths, the sizes
 * looked up (each with the whole listing as it now is, for an instance that must start
 * over: Session.setKinds and setSizes say false when their counts are not its listing's).
 * @typedef {object} ListingHolder
 * @property {(listing: Listing) => void} listing
 * @property {(kinds: Uint8Array, now: Listing) => void} kinds
 * @property {(sizes: Float64Array, now: Listing) => void} sizes
 */

/** @type {Set<ListingHolder>} */
const holders = new Set();
/** @type {Listing | null} */
let current = null;

// `holder` keeps the listing from now on (given the current one at once): → its release.
/** @param {ListingHolder} holder @returns {() => void} */
export function holdListing(holder) {
  holders.add(holder);
  if (current) holder.listing(current);
  return () => holders.delete(holder);
}

// A core session (this thread's, recovery.js): how it takes the listing.
/** @param {{ setListing(paths: string, lengths: Uint32Array, kinds: Uint8Array, sizes: Float64Array): void, setKinds(kinds: Uint8Array): boolean, setSizes(sizes: Float64Array): boolean }} session @returns {ListingHolder} */
export function sessionHolder(session) {
  /** @param {Listing} l */
  const all = l => session.setListing(l.paths, l.lengths, l.kinds, l.sizes);
  return {
    listing: all,
    kinds: (kinds, now) => {
      if (!session.setKinds(kinds)) all(now);
    },
    sizes: (sizes, now) => {
      if (!session.setSizes(sizes)) all(now);
    },
  };
}

// The listing every holder has now (null before an archive).
export function currentListing() {
  return current;
}

/** @param {Listing} listing */
export function broadcastListing(listing) {
  current = listing;
  for (const h of holders) h.listing(listing);
}

/** @param {Uint8Array} kinds */
export function broadcastKinds(kinds) {
  if (!current) return;
  const now = (current = { ...current, kinds });
  for (const h of holders) h.kinds(kinds, now);
}

/** @param {Float64Array} sizes */
export function broadcastSizes(sizes) {
  if (!current) return;
  const now = (current = { ...current, sizes });
  for (const h of holders) h.sizes(sizes, now);
}
