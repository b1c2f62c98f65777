// @ts-check
// The wasm core: compiled once, instantiated at start and again whenever an instance traps.
// A trap (a panic in the core) leaves its instance unusable: every later call into it fails
// ("recursive use of an object detected …"). wasm-bindgen's glue holds one instance per
// module record, so a fresh instance comes from a fresh import of the glue (a query string
// makes it another record) given the same compiled module.

const GLUE = new URL('../pkg/relicview.js', import.meta.url).href;

// Whether an error means the instance that threw it is gone.
export function isTrap(err) {
  return err instanceof WebAssembly.RuntimeError || /recursive use of an object detected/.test(String(err && err.message));
}

export async function compileCore() {
  const url = new URL('../pkg/relicview_bg.wasm', import.meta.url);
  try {
    return await WebAssembly.compileStreaming(fetch(url));
  } catch {
    // A server that does not say application/wasm.
    return WebAssembly.compile(await (await fetch(url)).arrayBuffer());
  }
}

// Instance number `generation` of the compiled module: → {glue (Viewer, Session, kindOf,
// kindInfo …), exports (its memory)}.
export async function instantiate(module, generation) {
  const glue = await import(generation ? `${GLUE}?instance=${generation}` : GLUE);
  const exports = await glue.default({ module_or_path: module });
  return { glue, exports };
}
