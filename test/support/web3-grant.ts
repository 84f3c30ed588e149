/**
 * Signed Sign-In-With-Solana grants made by hand, for the refusals supabase-js would never
 * send: another Domain or URI, odd times, the same message twice.
 */
import { request } from 'node:http';
import type { TestServer, TestWallet } from './harness.js';

/** The fields of a SIWS message that tests vary; `url` gives Domain (its host) and URI unless overridden. */
export interface MessageFields {
  url: string;
  domain?: string;
  uri?: string;
  issuedAt?: Date;
  notBefore?: Date;
  expirationTime?: Date;
}

/** A SIWS message as auth-js builds it. */
export function siwsMessage(address: string, fields: MessageFields): string {
  const { host, href } = new URL(fields.url);
  return [
    `${fields.domain ?? host} wants you to sign in with your Solana account:`,
    address,
    '',
    'Sign in to Tessera',
    '',
    'Version: 1',
    `URI: ${fields.uri ?? href}`,
    `Issued At: ${(fields.issuedAt ?? new Date()).toISOString()}`,
    ...(fields.notBefore ? [`Not Before: ${fields.notBefore.toISOString()}`] : []),
    ...(fields.expirationTime ? [`Expiration Time: ${fields.expirationTime.toISOString()}`] : []),
  ].join('\n');
}

/** The JSON body of a web3 grant: `fields` as a message signed by `wallet`. */
export async function signedGrant(wallet: TestWallet, fields: MessageFields): Promise<string> {
  const message = siwsMessage(wallet.address, fields);
  const signature = await wallet.signMessage(new TextEncoder().encode(message));
  return JSON.stringify({ chain: 'solana', message, signature: Buffer.from(signature).toString('base64url') });
}

/** A response read whole: status, headers and the parsed JSON body (null when empty). */
export interface RawResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Record<string, unknown> | null;
}

/**
 * An HTTP request through node:http, which (unlike fetch) sends the `Host` header it is given.
 * `path` is relative to the server's URL.
 */
export function rawRequest(server: Pick<TestServer, 'url'>, method: string, path: string, headers: Record<string, string>, body?: string): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const req = request(new URL(path, server.url), { method, headers }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body: text ? (JSON.parse(text) as Record<string, unknown>) : null }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

/** POSTs a web3 grant body (from {@link signedGrant}) with the anon key, and `headers` on top. */
export function postWeb3(server: Pick<TestServer, 'url' | 'anonKey'>, body: string, headers: Record<string, string> = {}): Promise<RawResponse> {
  return rawRequest(server, 'POST', '/auth/v1/token?grant_type=web3', { apikey: server.anonKey, 'content-type': 'application/json', ...headers }, body);
}
