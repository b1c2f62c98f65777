// @ts-check
// The wasm core: compiled once, instantiated at start and again whenever an instance traps.
// A trap (a panic in the core) leaves its instance unusable: every later call into it fails
// ("recursive use of an object detected …"). wasm-bindgen's glue holds one instance per
// module record, so a fresh instance comes from a fresh import of the glue (a query string
// makes it another record) given the same compiled module. The same holds for the modules
// loaded when first used (modules.js).

import { assetUrl } from './assets.js';

// Whether an error means the instance that threw it is gone.
/** @param {unknown} err */
export function isTrap(err) {
  return (
    err instanceof WebAssembly.RuntimeError ||
    /recursive use of an object detected/.test(err instanceof Error ? err.message : '')
  );
}

// The compiled module at `url` (streaming: compiled while it downloads). A server that does
// not say application/wasm gets the bytes compiled whole. Rejects with an error naming the
// module and why it could not be had.
/** @param {string} url @param {string} what */
export async function compileModule(url, what) {
  const failed = /** @param {string} why */ why =>
    new Error(`relicview could not load its ${what} (${url}): ${why}`);
  let response;
  try {
    response = await fetch(url);
  } catch (err) {
    throw failed(`the request failed (${err instanceof Error ? err.message : err})`);
  }
  if (!response.ok) throw failed(`HTTP ${response.status}`);
  try {
    // (Streaming compilation takes only a response that says it is wasm.)
    if (/^application\/wasm\b/.test(response.headers.get('Content-Type') || ''))
      return await WebAssembly.compileStreaming(response);
    return await WebAssembly.compile(await response.arrayBuffer());
  } catch (err) {
    throw failed(
      `not a module this browser compiles, or cut short (${err instanceof Error ? err.message : err})`,
    );
  }
}

// The core, compiled. index.html starts its download and compilation before the page's
// scripts run (www/shell/early.js); otherwise it starts here.
export function compileCore() {
  const early = globalThis.relicviewEarly;
  return early?.core
    ? early.core.catch(() => compileModule(assetUrl('core'), 'core'))
    : compileModule(assetUrl('core'), 'core');
}

// Instance number `generation` of a compiled module, through its glue at `glueUrl`:
// → {glue, exports (its memory)}.
/** @template T @param {WebAssembly.Module} module @param {number} generation @param {string} glueUrl @returns {Promise<{ glue: T, exports: { memory: WebAssembly.Memory } }>} */
export async function instantiateWith(module, generation, glueUrl) {
  const glue = await import(generation ? `${glueUrl}?instance=${generation}` : glueUrl);
  const exports = await glue.default({ module_or_path: module });
  return { glue, exports };
}

// Instance number `generation` of the core: → {glue (Viewer, Session, kindOf, kindInfo …),
// exports (its memory)}.
/** @param {WebAssembly.Module} module @param {number} generation @returns {Promise<{ glue: typeof import('../../pkg/relicview.js'), exports: { memory: WebAssembly.Memory } }>} */
export function instantiate(module, generation) {
  return instantiateWith(module, generation, assetUrl('coreGlue'));
}
