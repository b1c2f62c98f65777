// Debian's nginx as the static host of the publishing tests and benchmark: started on
// loopback ports with a config of its own (one process, no daemon, its files in a temp
// folder), logging each request's time, port, URI, status, Range header and $bytes_sent, so a
// test can count what the page transferred.

import { spawn } from 'node:child_process';
import { readFileSync, writeFileSync, existsSync, watch } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { scratchDir } from './scratch.mjs';

const NGINX = ['/usr/sbin/nginx', '/usr/bin/nginx'].find(p => existsSync(p));

async function freePort() {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.on('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });
}

// What docs/publishing.md gives a host of a published site, word for word (docs.test.mjs
// checks the two agree): the compressed files publish writes beside each file sent when the
// browser accepts them, other answers compressed as they go, the page's files (named by
// their content) kept for good and the rest asked again each time.
export const SITE_CONFIG = `
    brotli_static on;
    gzip_static on;
    gzip on;
    gzip_types text/javascript application/wasm application/json text/css;
    gzip_vary on;
    location ~ /assets/[^/]+$ {
        add_header Cache-Control "public, max-age=31536000, immutable";
    }
    location / {
        add_header Cache-Control "no-cache";
    }`;
// The module that sends a file's .br (Debian's libnginx-mod-http-brotli-static).
const BROTLI_STATIC = '/usr/lib/nginx/modules/ngx_http_brotli_static_module.so';

const CORS = `
      add_header Access-Control-Allow-Origin * always;
      add_header Access-Control-Expose-Headers "Content-Range, Content-Length" always;`;

// `origins`: {name: {root, cors, noRange, noExpose, flaky, site}} → {url(name), log(), since(mark), stop()}.
// Each origin is a server on a port of its own. `cors` sends Access-Control-Allow-Origin
// and exposes Content-Range and Content-Length (`noExpose`: the first only); `noRange`
// answers a Range request with the whole file (max_ranges 0); `flaky` answers 503 to a
// request that comes within half a second of the one before (limit_req); `site` serves as
// docs/publishing.md tells a host to serve a published site (SITE_CONFIG).
export async function startNginx(origins) {
  if (!NGINX)
    throw new Error("nginx is not installed (scripts/setup.sh --tests installs Debian's nginx-light)");
  const dir = scratchDir('nginx');
  const ports = {};
  for (const name of Object.keys(origins)) ports[name] = await freePort();
  const servers = Object.entries(origins)
    .map(
      ([name, o]) => `
    server {
      listen 127.0.0.1:${ports[name]};
      root ${o.root};
      ${o.noRange ? 'max_ranges 0;' : ''}
      ${o.flaky ? 'limit_req zone=flaky nodelay; limit_req_status 503;' : ''}
      ${o.cors ? (o.noExpose ? 'add_header Access-Control-Allow-Origin * always;' : CORS) : ''}
      ${o.site ? SITE_CONFIG : ''}
    }`,
    )
    .join('\n');
  const log = join(dir, 'access.log');
  const site = Object.values(origins).some(o => o.site);
  if (site && !existsSync(BROTLI_STATIC))
    throw new Error(
      `${BROTLI_STATIC} is missing (scripts/setup.sh --tests installs Debian's libnginx-mod-http-brotli-static)`,
    );
  writeFileSync(
    join(dir, 'nginx.conf'),
    `${site ? `load_module ${BROTLI_STATIC};` : ''}
daemon off;
master_process off;
worker_processes 1;
pid ${join(dir, 'nginx.pid')};
error_log ${join(dir, 'error.log')} warn;
events { worker_connections 256; }
http {
  types { text/html html; text/javascript js mjs; application/wasm wasm; application/json json; text/css css; }
  default_type application/octet-stream;
  log_format bytes '$msec $server_port "$uri" $status $bytes_sent "$http_range"';
  access_log ${log} bytes;
  client_body_temp_path ${dir}/body; proxy_temp_path ${dir}/proxy; fastcgi_temp_path ${dir}/fastcgi;
  uwsgi_temp_path ${dir}/uwsgi; scgi_temp_path ${dir}/scgi;
  sendfile on;
  limit_req_zone $server_port zone=flaky:1m rate=2r/s;
  etag off;
  ${servers}
}
`,
  );
  writeFileSync(log, '');
  const child = spawn(NGINX, ['-p', dir, '-c', join(dir, 'nginx.conf')], {
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', d => {
    stderr += d;
  });
  // Up once its pid file is written: nginx writes it after it has bound and listens on
  // every port, and says nothing else when it is ready (no daemon, no output). The folder
  // is watched for it; a nginx that exits first ends the wait with its error log.
  const pidFile = join(dir, 'nginx.pid');
  let ended = () => {};
  const up = new Promise((resolve, reject) => {
    const watcher = watch(dir, () => {
      if (existsSync(pidFile)) done();
    });
    const exited = () =>
      done(
        new Error(
          `nginx did not start: ${stderr}${existsSync(join(dir, 'error.log')) ? readFileSync(join(dir, 'error.log'), 'utf8') : ''}`,
        ),
      );
    /** @param {Error} [err] */
    function done(err) {
      watcher.close();
      child.off('exit', exited);
      if (err) reject(err);
      else resolve(undefined);
    }
    child.once('exit', exited);
    ended = () => {
      child.off('exit', exited);
      child.kill();
      done(new Error(`nginx wrote no pid file in 30 s: ${stderr}`));
    };
    if (existsSync(pidFile)) done();
  });
  const late = setTimeout(() => ended(), 30_000);
  await up.finally(() => clearTimeout(late));
  const entries = () =>
    readFileSync(log, 'utf8')
      .split('\n')
      .filter(Boolean)
      .map(line => {
        const m = /^([\d.]+) (\d+) "(.*)" (\d+) (\d+) "(.*)"$/.exec(line);
        const origin = Object.keys(ports).find(n => ports[n] === Number(m[2]));
        // `at`: when the response ended, in ms since the epoch (a page's performance.timeOrigin
        // plus its clock is on the same scale).
        return {
          at: Number(m[1]) * 1000,
          origin,
          uri: decodeURIComponent(m[3]),
          status: Number(m[4]),
          bytes: Number(m[5]),
          range: m[6] === '-' ? null : m[6],
        };
      });
  return {
    url: name => `http://127.0.0.1:${ports[name]}/`,
    // Requests logged so far; `mark()` then `since(mark)`: those after it (nginx writes its
    // log line when the response is sent).
    log: entries,
    mark: () => entries().length,
    since: mark => entries().slice(mark),
    stop: () => child.kill(),
  };
}
