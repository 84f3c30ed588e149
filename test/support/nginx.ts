/**
 * nginx as the tests run it in front of servers: one of the `server` blocks of docs/proxy/ with
 * its placeholders replaced, inside an `http` block that nginx runs unprivileged from a folder of
 * the test, with a self-signed certificate; and raw HTTP(S) requests whose path is sent exactly
 * as written. Debian's nginx and openssl (.ci/run installs nginx).
 */
import { execFileSync, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { join } from 'node:path';
import * as assert from 'uvu/assert';
import { freePort } from '../../server/db/cluster.js';
import { makeDataDir, removeDataDir } from './server.js';
import { waitFor } from './wait.js';

export const NGINX = '/usr/sbin/nginx';

/** Whether nginx and openssl are installed; says so on the console when not (the caller skips). */
export function nginxInstalled(suite: string): boolean {
  if (existsSync(NGINX) && existsSync('/usr/bin/openssl')) return true;
  console.log(`${suite}: nginx or openssl is not installed, skipped`);
  return false;
}

/** What one request got back. */
export interface Answer {
  status: number;
  body: string;
  headers: IncomingHttpHeaders;
}

/** Where and how {@link send} sends a request: its path is sent exactly as written (fetch and URL strings would resolve it). */
export interface Sending {
  port: number;
  path: string;
  /** TLS (to nginx) or plain HTTP (to the server). */
  tls: boolean;
  method?: string;
  headers?: Record<string, string>;
  body?: string;
  /** The address the connection is made from (any of 127.0.0.0/8 on loopback). */
  localAddress?: string;
  host?: string;
}

/** Sends one request on a connection of its own (closed after the answer). */
export function send({ port, path, tls, method = 'GET', headers = {}, body, localAddress, host = '127.0.0.1' }: Sending): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const options = { host, port, path, method, headers: { Connection: 'close', ...headers }, localAddress, rejectUnauthorized: false, agent: false };
    const req = (tls ? httpsRequest : httpRequest)(options, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      res.on('end', () => resolve({ status: res.statusCode!, body: text, headers: res.headers }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

/** Paths a docs/proxy/ file names that a test replaces. */
const CERTIFICATE = '/etc/letsencrypt/live/tessera.example/fullchain.pem';
const KEY = '/etc/letsencrypt/live/tessera.example/privkey.pem';

/**
 * docs/proxy/`file` with its `listen` on 127.0.0.1:`port`, the certificate of `dir`, and
 * `edit` applied to the rest (the upstream addresses, a rule taken out).
 */
export async function proxySite(file: string, dir: string, port: number, edit: (site: string) => string): Promise<string> {
  const original = await readFile(join('docs/proxy', file), 'utf8');
  assert.ok(original.includes('listen 443 ssl http2;') && original.includes(CERTIFICATE) && original.includes(KEY), `${file} has the placeholders`);
  return edit(original
    .replace('listen 443 ssl http2;', `listen 127.0.0.1:${port} ssl http2;`)
    .replaceAll(CERTIFICATE, join(dir, 'cert.pem'))
    .replaceAll(KEY, join(dir, 'key.pem')));
}

/** A running nginx of a test. */
export interface TestNginx {
  /** Its TLS port on 127.0.0.1. */
  port: number;
  /** Stops it gracefully and removes its folder. */
  stop(): Promise<void>;
}

/**
 * Runs nginx with the site `makeSite(dir, port)` returns (a `server` block and what goes beside
 * it in `http`) on a free port with a self-signed certificate in a new folder `dir`; resolves once
 * `/healthz` answers 200 through it.
 */
export async function startNginx(makeSite: (dir: string, port: number) => Promise<string>): Promise<TestNginx> {
  const dir = await makeDataDir();
  const port = await freePort();
  execFileSync('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-days', '1', '-subj', '/CN=127.0.0.1',
    '-keyout', join(dir, 'key.pem'), '-out', join(dir, 'cert.pem')], { stdio: 'ignore' });
  const config = `daemon off;\nworker_processes 1;\npid ${join(dir, 'nginx.pid')};\nerror_log ${join(dir, 'error.log')};\n`
    + `events { worker_connections 64; }\nhttp {\n access_log off;\n client_body_temp_path ${dir};\n proxy_temp_path ${dir};\n${await makeSite(dir, port)}\n}\n`;
  await writeFile(join(dir, 'nginx.conf'), config);
  const nginx = spawn(NGINX, ['-c', join(dir, 'nginx.conf'), '-p', dir], { stdio: 'ignore' });
  const exited = new Promise((resolve) => nginx.once('exit', resolve));
  const stop = async () => {
    nginx.kill('SIGQUIT');
    await exited;
    await removeDataDir(dir);
  };
  try {
    const up = () => send({ port, path: '/healthz', tls: true }).then((answer) => answer.status === 200, () => false);
    await waitFor(up, { timeout: 10_000, message: 'nginx up' });
  } catch (error) {
    await stop();
    throw error;
  }
  return { port, stop };
}
