// @ts-check
// The wasm modules loaded when first used, beside the core (core.js), which holds all that
// viewing a file needs: a shared link downloads nothing else.
// - containers: ZIP, 7z, ISO, disc rips, CHD and their decoders. Compiled once on the page
//   when the first container is opened; the container workers instantiate it
//   (container-worker.js), and the page does for entries of containers on a static host
//   (hosted.js).
// - tools: glTF export, comparisons, Export all, instantiated on the page; it links no
//   format and opens no file: the core opens them and hands over what the tools need.
// A module that cannot be had (the host does not serve it, the network fails) makes the use
// that asked for it fail with which module and why; the next use asks again, and the rest of
// the page works as before. This module owns the modules' compiled forms and the tools'
// instance.

import { assetUrl } from './assets.js';
import { compileModule, instantiateWith, isTrap } from './core.js';

/** @typedef {typeof import('../../pkg/relicview_containers.js')} ContainersGlue */
/** @typedef {typeof import('../../pkg/relicview_tools.js')} ToolsGlue */

/** @type {Map<string, Promise<WebAssembly.Module>>} */
const compiled = new Map();
// What has been loaded, for scripts and tests (`window.relicview.modules()`).
const loaded = { containers: false, tools: false };

// The module `name` compiled, once; a failure is not kept, so the next use tries again.
/** @param {'containers' | 'tools'} name */
function compiledModule(name) {
  let module = compiled.get(name);
  if (!module) {
    module = compileModule(assetUrl(name), `${name} module`);
    compiled.set(name, module);
    module.then(
      () => {
        loaded[name] = true;
      },
      () => compiled.delete(name),
    );
  }
  return module;
}

export function loadedModules() {
  return { ...loaded };
}

// The containers module, compiled, for a container worker to instantiate.
export function containersModule() {
  return compiledModule('containers');
}

let containersOnPage = null;

// The containers module instantiated on the page (the entries of containers on a static
// host are rebuilt here from the ranges fetched).
/** @returns {Promise<ContainersGlue>} */
export function containersHere() {
  containersOnPage ||= containersModule()
    .then(module => instantiateWith(module, 0, assetUrl('containersGlue')))
    .then(
      ({ glue }) => /** @type {ContainersGlue} */ (glue),
      err => {
        containersOnPage = null;
        throw err;
      },
    );
  return containersOnPage;
}

// The tools' instance: {glue}. A trap in it (a panic while exporting or comparing) ends
// that instance; the next use makes another. It opens no file: the core hands it what it
// works on.
/** @typedef {{ glue: ToolsGlue }} Tools */
/** @type {Promise<Tools> | null} */
let tools = null;
let toolsGeneration = 0;

/** @returns {Promise<Tools>} */
function toolsInstance() {
  tools ||= compiledModule('tools')
    .then(module => instantiateWith(module, toolsGeneration++, assetUrl('toolsGlue')))
    .then(
      ({ glue }) => ({ glue: /** @type {ToolsGlue} */ (glue) }),
      err => {
        tools = null;
        throw err;
      },
    );
  return tools;
}

// `use({glue})` with the tools' instance; a trap ends that instance, and the error goes on
// to the caller.
/** @template T @param {(tools: Tools) => T | Promise<T>} use @returns {Promise<T>} */
export async function withTools(use) {
  const instance = await toolsInstance();
  try {
    return await use(instance);
  } catch (err) {
    if (isTrap(err)) {
      tools = null;
      const said = globalThis.relicviewPanic;
      globalThis.relicviewPanic = undefined;
      throw new Error(
        `relicview's tools module stopped (${said || (err instanceof Error ? err.message : String(err))}); it starts again at the next use`,
      );
    }
    throw err;
  }
}
