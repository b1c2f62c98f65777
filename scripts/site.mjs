// Makes the site `relicview serve` and `relicview publish` hand out (site/) from the source
// tree (index.html, www/, pkg/), as scripts/build.sh's last step:
// - the page's scripts bundled and minified by esbuild: one script for the page and one per
//   worker, where the source's 40 modules cost a cold link a round trip for each level of
//   imports;
// - every file but index.html named by its content (name.HASH.ext under assets/), so that a
//   host can let browsers keep them for good (docs/publishing.md, "Caching") and a page
//   never mixes the files of two builds: www/ground/assets.js, the one table of where the page's
//   files are, is replaced by their hashed names;
// - index.html naming them, with www/shell/early.js inlined (the core's download and a link's
//   fetches start before the page's scripts) and the core's glue preloaded;
// - beside each, the same bytes compressed (.br: brotli 11, .gz: gzip 9), which a host sends
//   to a browser that accepts them (nginx's brotli_static and gzip_static; relicview serve)
//   at no cost per request;
// - assets.json: the build's own files, by what they are (publish keeps the previous build's
//   beside a new one's, for pages opened before it).
// The source tree's own index.html still runs as it is (unbundled), for development.
//
// node scripts/site.mjs [OUT] [--pkg DIR]   (default: site/, from pkg/; the tests build a
//   second site from other modules to publish over the first)

import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { brotliCompress, constants, gzip } from 'node:zlib';
import * as esbuild from 'esbuild';

const repo = resolve(import.meta.dirname, '..');
const args = process.argv.slice(2);
const pkgAt = args.indexOf('--pkg');
const pkg = pkgAt >= 0 ? resolve(args.splice(pkgAt, 2)[1]) : join(repo, 'pkg');
const out = resolve(args[0] || join(repo, 'site'));
const building = `${out}.building`;
rmSync(building, { recursive: true, force: true });
mkdirSync(join(building, 'assets'), { recursive: true });

// `bytes` written at `path`, its compressed forms beside it once `compressing` is awaited:
// they are made on Node's worker threads, the largest (brotli 11 of the wasm modules, most
// of this script's time) side by side.
const compressing = [];
const [brotli, gzipped] = [promisify(brotliCompress), promisify(gzip)];
function writeCompressed(path, bytes) {
  writeFileSync(path, bytes);
  compressing.push(
    brotli(bytes, {
      params: { [constants.BROTLI_PARAM_QUALITY]: 11, [constants.BROTLI_PARAM_SIZE_HINT]: bytes.length },
    }).then(br => writeFileSync(`${path}.br`, br)),
    gzipped(bytes, { level: 9 }).then(gz => writeFileSync(`${path}.gz`, gz)),
  );
}

// `bytes` written as assets/BASE.HASH.EXT; → its name there.
function hashed(base, ext, bytes) {
  const name = `${base}.${createHash('sha256').update(bytes).digest('hex').slice(0, 12)}.${ext}`;
  writeCompressed(join(building, 'assets', name), bytes);
  return name;
}

// The page's table of files (www/ground/assets.js): each name to its hashed file, beside the
// script that reads the table (all of them sit in assets/).
const table = {};
const assetsModule =
  () => `export const ASSETS = ${JSON.stringify(Object.fromEntries(Object.entries(table).map(([k, v]) => [k, `./${v}`])))};
export function assetUrl(name) { return new URL(ASSETS[name], import.meta.url).href; }`;
const withTable = {
  name: 'relicview-assets',
  setup(build) {
    build.onResolve({ filter: /(^|\/)assets\.js$/ }, args =>
      resolve(args.resolveDir, args.path) === join(repo, 'www/ground/assets.js')
        ? { path: 'assets', namespace: 'relicview-assets' }
        : undefined,
    );
    build.onLoad({ filter: /.*/, namespace: 'relicview-assets' }, () => ({
      contents: assetsModule(),
      loader: 'js',
    }));
    // The glue a worker imports, from the modules this site is built from.
    build.onResolve({ filter: /^\.\.\/pkg\/[\w.-]+\.js$/ }, args => ({
      path: join(pkg, args.path.split('/').pop()),
    }));
  },
};

async function bundle(entry) {
  const result = await esbuild.build({
    entryPoints: [join(repo, entry)],
    bundle: true,
    format: 'esm',
    minify: true,
    target: 'es2022',
    write: false,
    logLevel: 'warning',
    plugins: [withTable],
  });
  return result.outputFiles[0].contents;
}

// The wasm modules, and their glue (imported by URL: a fresh import is a fresh instance,
// www/ground/core.js).
for (const [key, name] of [
  ['core', 'relicview'],
  ['containers', 'relicview_containers'],
  ['tools', 'relicview_tools'],
]) {
  table[key] = hashed(`${name}_bg`, 'wasm', readFileSync(join(pkg, `${name}_bg.wasm`)));
  const glue = await esbuild.transform(readFileSync(join(pkg, `${name}.js`), 'utf8'), {
    format: 'esm',
    minify: true,
    target: 'es2022',
  });
  table[`${key}Glue`] = hashed(name, 'js', Buffer.from(glue.code));
}
// The workers (each bundled with what it imports, the glue it runs included), and the
// WebM writer, bundled with Mediabunny.
for (const [key, file] of [
  ['containerWorker', 'workers/container-worker'],
  ['openWorker', 'workers/open-worker'],
  ['headWorker', 'workers/head-worker'],
  ['thumbWorker', 'workers/thumb-worker'],
  // (Not a worker: the WebM writer the page imports when a capture makes a video.)
  ['webm', 'ground/webm'],
]) {
  table[key] = hashed(basename(file), 'js', await bundle(`www/${file}.js`));
}
const page = hashed('main', 'js', await bundle('www/shell/main.js'));
const css = await esbuild.transform(readFileSync(join(repo, 'www/style.css'), 'utf8'), {
  loader: 'css',
  minify: true,
});
const style = hashed('style', 'css', Buffer.from(css.code));
const early = (
  await esbuild.transform(readFileSync(join(repo, 'www/shell/early.js'), 'utf8'), {
    minify: true,
    target: 'es2022',
  })
).code.trim();

// index.html: the source's, its three references to the source tree replaced.
let html = readFileSync(join(repo, 'index.html'), 'utf8');
const replace = (from, to) => {
  if (!html.includes(from))
    throw new Error(`index.html no longer holds ${from}: scripts/site.mjs must follow it`);
  html = html.replace(from, to);
};
replace('<link rel="stylesheet" href="www/style.css">', `<link rel="stylesheet" href="assets/${style}">`);
replace(
  '<script src="www/shell/early.js" data-core="pkg/relicview_bg.wasm"></script>',
  `<script data-core="assets/${table.core}">${early}</script>\n  <link rel="modulepreload" href="assets/${table.coreGlue}">`,
);
replace(
  '<script type="module" src="www/shell/main.js"></script>',
  `<script type="module" src="assets/${page}"></script>`,
);
writeCompressed(join(building, 'index.html'), Buffer.from(html));
writeFileSync(join(building, 'assets.json'), `${JSON.stringify({ ...table, page, style }, null, 1)}\n`);
await Promise.all(compressing);

rmSync(out, { recursive: true, force: true });
mkdirSync(dirname(out), { recursive: true });
renameSync(building, out);
console.log(`site.mjs: ${out} (${Object.keys(table).length + 2} assets)`);
