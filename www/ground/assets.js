// @ts-check
// Where the page's other files are, relative to this module, as the source tree lays them
// out. A built site (scripts/site.mjs) replaces this table with the files' content-hashed
// names, so that every file the page loads is named by what it holds (docs/publishing.md,
// "Caching"). Everything that loads a file of the page's own asks here.

export const ASSETS = {
  // The core: what viewing a file needs (www/ground/core.js), and its glue.
  core: '../../pkg/relicview_bg.wasm',
  coreGlue: '../../pkg/relicview.js',
  // Loaded when first used (www/ground/modules.js): containers and their decoders, and the tools
  // (glTF export, comparisons, Export all).
  containers: '../../pkg/relicview_containers_bg.wasm',
  containersGlue: '../../pkg/relicview_containers.js',
  tools: '../../pkg/relicview_tools_bg.wasm',
  toolsGlue: '../../pkg/relicview_tools.js',
  // The WebM writer, loaded when a capture makes a video (capture.js).
  webm: './webm.js',
  // The workers.
  containerWorker: '../workers/container-worker.js',
  openWorker: '../workers/open-worker.js',
  headWorker: '../workers/head-worker.js',
  thumbWorker: '../workers/thumb-worker.js',
};

/** @param {keyof typeof ASSETS} name */
export function assetUrl(name) {
  return new URL(ASSETS[name], import.meta.url).href;
}
