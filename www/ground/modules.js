// @ts-check
// The wasm modules loaded when first used, beside the core (core.js), which holds all that
// viewing a file needs: a shared link downloads nothing else.
// - containers: ZIP, 7z, ISO, disc rips, CHD and their decoders. Compiled once on the page
//   when the first container is opened; the container workers instantiate it
//   (container-worker.js), and the page does for entries of containers on a static host
//   (hosted.js).
// - tools: glTF export, comparisons, Export all, instantiated on the page with an archive
//   session of its own, kept listed as the core's.
// A module that cannot be had (the host does not serve it, the network fails) makes the use
// that asked for it fail with which module and why; the next use asks again, and the rest of
// the page works as before. This module owns the modules' compiled forms and the tools'
// instance.

import { assetUrl } from './assets.js';
import { compileModule, instantiateWith, isTrap } from './core.js';
import { holdListing, sessionHolder } from './listings.js';
import { state } from './state.js';

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

// The tools' instance and the archive it opens files in: {glue, session}. A trap in it
// (a panic while exporting or comparing) ends that instance; the next use makes another.
/** @typedef {{ glue: ToolsGlue, session: import('../../pkg/relicview_tools.js').Session }} Tools */
/** @type {Promise<Tools> | null} */
let tools = null;
let toolsGeneration = 0;
// A file of the archive, as the tools' session reads it.
/** @param {string} path @returns {Promise<ArrayBuffer>} */
function readListed(path) {
  const entry = state.byPath.get(path.toLowerCase());
  return entry ? entry.read() : Promise.reject(new Error('not in the archive'));
}
// Lets the tools' instance that trapped go of the listing.
let releaseListing = () => {};

/** @returns {Promise<Tools>} */
function toolsInstance() {
  tools ||= compiledModule('tools')
    .then(module => instantiateWith(module, toolsGeneration++, assetUrl('toolsGlue')))
    .then(
      ({ glue }) => {
        const g = /** @type {ToolsGlue} */ (glue);
        const session = new g.Session(readListed);
        releaseListing = holdListing(sessionHolder(session));
        return { glue: g, session };
      },
      err => {
        tools = null;
        throw err;
      },
    );
  return tools;
}

// `use({glue, session})` with the tools' instance; a trap ends that instance, and the error
// goes on to the caller.
/** @template T @param {(tools: { glue: ToolsGlue, session: import('../../pkg/relicview_tools.js').Session }) => T | Promise<T>} use @returns {Promise<T>} */
export async function withTools(use) {
  const instance = await toolsInstance();
  try {
    return await use(instance);
  } catch (err) {
    if (isTrap(err)) {
      tools = null;
      releaseListing();
      const said = globalThis.relicviewPanic;
      globalThis.relicviewPanic = undefined;
      throw new Error(
        `relicview's tools module stopped (${said || (err instanceof Error ? err.message : String(err))}); it starts again at the next use`,
      );
    }
    throw err;
  }
}
