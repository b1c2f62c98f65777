// @ts-check
// A worker's reads of the archive's files through the page (open-worker.js,
// thumb-worker.js): the worker names a path, the page answers where it is (a dropped File,
// a served archive's URL, or the bytes themselves: opener.js's `answerSource`), and the
// worker reads it, so that no file's bytes pass through the page's thread but those only
// the page can read.

/** @typedef {{ buffer?: ArrayBuffer, file?: File, url?: string, error?: string }} Where */

// → {read(path) → Promise<ArrayBuffer>, answer(message)}: `answer` takes the page's
// {type: 'source', id, …} replies.
export function pageSources() {
  /** @type {Map<number, { resolve: (where: Where) => void, reject: (err: Error) => void }>} */
  const waiting = new Map();
  let last = 0;
  /** @param {string} path @returns {Promise<ArrayBuffer>} */
  async function read(path) {
    const id = ++last;
    /** @type {Where} */
    const where = await new Promise((resolve, reject) => {
      waiting.set(id, { resolve, reject });
      self.postMessage({ type: 'source', id, path });
    });
    if (where.file) return where.file.arrayBuffer();
    if (where.url) {
      const r = await fetch(where.url);
      if (!r.ok) throw new Error(`${path}: HTTP ${r.status} from the archive server`);
      return r.arrayBuffer();
    }
    return where.buffer ?? new ArrayBuffer(0);
  }
  /** @param {Where & { id: number }} m */
  function answer(m) {
    const asked = waiting.get(m.id);
    waiting.delete(m.id);
    if (!asked) return;
    if (m.error) asked.reject(new Error(m.error));
    else asked.resolve(m);
  }
  return { read, answer };
}
