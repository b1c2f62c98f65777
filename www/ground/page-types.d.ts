// Shapes the page's modules hand each other, declared once; the modules' JSDoc names them.
// What the core hands the page is typed by its own declarations (pkg/relicview.d.ts).

/** Where a worker can read a file itself (opener.js): a local File, a URL, or a reader. */
type EntrySource = { file: File } | { url: string } | { read: () => Promise<ArrayBuffer> };

/** How a long read goes: what it is doing, `done` of `total` steps (0: unknown). */
type ReadProgress = (what: string, done: number, total: number) => void;

/** The archive's listing as the core's sessions take it (Session.setListing): the paths
 * joined, each one's length, its kind's number, its size as stored (NaN: not known yet). */
interface Listing {
  paths: string;
  lengths: Uint32Array;
  kinds: Uint8Array;
  sizes: Float64Array;
}

/** A file of the archive's listing (files.js makes them; filelist.js marks them). */
interface Entry {
  path: string;
  readonly size: number;
  /** Whether the size is known yet (a local file's is looked up when first asked for). */
  readonly sized?: boolean;
  /** The kind's word (the core's), null or absent while not yet typed. */
  kind?: string | null;
  /** Its bytes; `progress` hears how a long read goes (a container entry's decoding). */
  read(progress?: ReadProgress): Promise<ArrayBuffer>;
  head?(): Promise<ArrayBuffer>;
  source?(): EntrySource;
  learnSize?(n: number): void;
  file?: File;
  /** A container the host could not open: why. */
  containerFailure?: string;
  /** Typing by content is under way. */
  pending?: boolean;
  /** Typed by its name so far: its content is read in the background to confirm it. */
  byName?: boolean;
  /** Its content is costly to read ahead (a solid 7z's entry): confirmed when opened. */
  confirmOnOpen?: boolean;
  failed?: boolean;
  failure?: string | null;
  damaged?: boolean;
  /** The name on the disc, where the listing shows another (a version suffix cut). */
  writtenAs?: string;
}

/** A listing's entries, with what the listing said of itself. */
interface Entries extends Array<Entry> {
  /** The archive's name (a served folder's). */
  root?: string;
  /** What the listing found wrong, as messages naming the container. */
  problems?: string[];
}

/** What index.html's early script started (www/shell/early.js): the core and a link's files. */
interface EarlyDownloads {
  core?: Promise<WebAssembly.Module>;
  /** The listing a link names, taken (set to null) by the read it was started for. */
  listing?: { url: string; bytes: Promise<ArrayBuffer | null> } | null;
  files?: { path: string; size: number; fetched: Promise<{ url: string; buffer: ArrayBuffer }> }[] | null;
}

declare var relicviewEarly: EarlyDownloads | undefined;

/** A file's row of a hosted listing (archive.json, index.json), as the core reads it. */
type ListingRow = import('../../pkg/relicview.js').HostedFile;

/** What the inspector has selected: a record (null: bytes alone) and a byte range. */
interface InspectorSelection {
  chunk: number | null;
  start: number;
  end: number;
}

/** Two files compared, while on show (compare.js makes it, compareview.js holds it). */
interface Comparison {
  a: string;
  b: string;
  /** The comparison as `relicview diff --json` gives it. */
  result: import('../../pkg/relicview_tools.js').Comparison;
  legend: import('../../pkg/relicview_tools.js').Legend;
  hasDifference: boolean;
}

/** A texture of the gallery: the core's card, its place among its file's, who uses it. */
type TextureCardShown = import('../../pkg/relicview.js').PicturedTextureCard & {
  own: number;
  users: import('../../pkg/relicview.js').TextureUsers | null;
  /** Its card on the page, once drawn. */
  element?: HTMLElement;
};

/** What the last panic in a wasm module said (crates/web-glue sets it; the page takes it). */
declare var relicviewPanic: string | undefined;

/**
 * A file opened for the page: the core's OpenedFile, or one the parsing worker opened
 * (opener.js's RemoteFile answers the same calls from what the worker sent).
 */
type ShownFile = Pick<
  import('../../pkg/relicview.js').OpenedFile,
  | 'path'
  | 'kind'
  | 'capabilities'
  | 'error'
  | 'damage'
  | 'inspect'
  | 'bytes'
  | 'infoRows'
  | 'info'
  | 'text'
  | 'image'
  | 'imageRegions'
  | 'imagePlanes'
  | 'gallery'
  | 'exports'
  | 'timings'
  | 'free'
>;

/** A button under a message: its label and what it does. */
type MessageAction = [string, () => void];

/** A container entry of a hosted index, as the core reads it: [path, size, kind, at, CRC-32, ranges, extents?]. */
type HostedEntryRow = import('../../pkg/relicview.js').HostedContainer['entries'][number];

/** A container of a hosted index, as the core reads it (`readHostedIndex`). */
type HostedContainer = import('../../pkg/relicview.js').HostedContainer & {
  /** Set by files.js for a container inside another: where its bytes are read from. */
  outer?: { container: HostedContainer; row: HostedEntryRow; url: () => string };
};

// A WebM video being written (www/ground/webm.js, loaded when a capture makes one): frames added in
// order, then finished into a Blob; `alpha`: the encoder keeps transparency.
interface WebmWriter {
  codec: string;
  alpha: boolean;
  add(rgba: Uint8Array, i: number): Promise<void>;
  finish(): Promise<Blob>;
  cancel(): Promise<void>;
}
// What www/ground/webm.js exports (its own declarations, Mediabunny's, are checked by
// www/ground/webm.tsconfig.json: they clash with the DOM library's WebCodecs types).
interface WebmModule {
  startWebm(asked: { width: number; height: number; fps: number; transparent: boolean }): Promise<WebmWriter>;
}

interface Window {
  /** The automation API scripts outside this repo rely on (api.js; docs/api.md). */
  relicview: typeof import('../shell/api.js').api;
}
