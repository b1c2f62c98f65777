// Reads the first 16 bytes and the size of each File it is sent, off the page's thread (see
// readHeads). (A File sent here carries its size: reading it costs this thread nothing.)
self.onmessage = async (e) => {
  const { job, files } = e.data;
  const heads = await Promise.all(files.map((f) => f.slice(0, 16).arrayBuffer().catch(() => null)));
  self.postMessage({ job, heads, sizes: files.map((f) => f.size) }, heads.filter(Boolean));
};
