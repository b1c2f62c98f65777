// Reads the first 16 bytes of each File it is sent, off the page's thread (see readHeads).
self.onmessage = async (e) => {
  const { job, files } = e.data;
  const heads = await Promise.all(files.map((f) => f.slice(0, 16).arrayBuffer().catch(() => null)));
  self.postMessage({ job, heads }, heads.filter(Boolean));
};
