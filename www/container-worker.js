// Lists and reads containers — ZIP files, ISO images, disc rips — off the page's thread
// (see containers.js). A worker may read a File synchronously (FileReaderSync over
// File.slice), which suits the core's readers: only the directory and the entries asked for
// are ever read, never the whole container.
import init, { ContainerReader } from '../pkg/relicview.js';

let booted = null;
const readers = new Map(); // container id → ContainerReader

self.onmessage = async (e) => {
  const m = e.data;
  if (m.type === 'init') {
    booted = init({ module_or_path: m.module });
    return;
  }
  await booted;
  try {
    if (m.type === 'open') {
      const sync = new FileReaderSync();
      const file = m.file;
      const read = (offset, length) => new Uint8Array(sync.readAsArrayBuffer(file.slice(offset, offset + length)));
      const reader = new ContainerReader(m.name, read, file.size, m.mode || '', m.start || 0);
      readers.set(m.id, reader);
      self.postMessage({ type: 'listed', job: m.job, entries: reader.entries(), problems: reader.problems() });
    } else if (m.type === 'read') {
      const bytes = readers.get(m.id).read(m.container, m.index);
      self.postMessage({ type: 'read', job: m.job, bytes }, [bytes.buffer]);
    } else if (m.type === 'head') {
      const bytes = readers.get(m.id).head(m.container, m.index, 16);
      self.postMessage({ type: 'read', job: m.job, bytes }, [bytes.buffer]);
    } else if (m.type === 'close') {
      readers.get(m.id)?.free();
      readers.delete(m.id);
    }
  } catch (err) {
    self.postMessage({ type: 'error', job: m.job, message: err && err.message ? err.message : String(err) });
  }
};
