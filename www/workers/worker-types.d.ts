// The shapes the page and its workers share (checked by both tsconfigs; page-types.d.ts
// holds the page's own, whose modules a worker cannot load).

// The store of decoded entries the page implements (decoded-cache.js) and the containers
// module calls (crates/web-containers: `DecodedStore`, whose calls are typed there): the
// page owns the shape, so it is declared here, for both sides.

/** Decoded entries the page keeps, answering synchronously. */
interface DecodedStore {
  has(index: number): boolean;
  get(index: number): Uint8Array | undefined;
  put(index: number, offset: number, bytes: Uint8Array, last: boolean): void;
}

/** What the parsing worker posts for a file it opened (open-worker.js; opener.js reads it):
 * the core's summary of the file, and its scene as bytes. */
interface OpenedMessage {
  type: 'opened';
  job: number;
  summary: import('../../pkg/relicview.js').OpenedSummary;
  scene: Uint8Array | null;
  memoryBytes: number;
  packMs: number;
  postedAt: number;
}

/** Everything the parsing worker posts (open-worker.js; opener.js answers). */
type OpenWorkerMessage =
  | OpenedMessage
  | { type: 'failed'; job: number; error: import('../../pkg/relicview.js').ErrorAt }
  | { type: 'source'; id: number; path: string }
  | { type: 'ready' }
  | { type: 'broken'; message: string };
