import { createPublicKey, verify } from 'node:crypto';
import { getBase58Encoder } from '@solana/web3.js';
import { AuthError } from './errors.js';
import { parseSiws, type SiwsMessage } from './siws.js';

/** How far Issued At may be from now. */
const MAX_SKEW_MS = 10 * 60 * 1000;
const MIN_MESSAGE_BYTES = 64;
const MAX_MESSAGE_BYTES = 20 * 1024;
const LOCAL_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]']);

/** The body of `POST /auth/v1/token?grant_type=web3`. */
export interface Web3Grant {
  chain?: unknown;
  message?: unknown;
  signature?: unknown;
}

const invalidGrant = (message: string) => new AuthError(400, 'invalid_grant', message);
const validationFailed = (message: string) => new AuthError(400, 'validation_failed', message);

function verifyEd25519(address: string, message: string, signature: Uint8Array): boolean {
  const raw = getBase58Encoder().encode(address);
  if (raw.length !== 32) return false;
  const key = createPublicKey({ key: { kty: 'OKP', crv: 'Ed25519', x: Buffer.from(raw).toString('base64url') }, format: 'jwk' });
  return verify(null, Buffer.from(message, 'utf8'), key, signature);
}

function checkUri(siws: SiwsMessage, serverHost: string): void {
  let uri: URL;
  try {
    uri = new URL(siws.uri);
  } catch {
    throw invalidGrant('URI in the Solana message is not a valid URL');
  }
  const local = LOCAL_HOSTS.has(uri.hostname);
  if (uri.protocol !== 'https:' && !local) throw invalidGrant('URI must use https unless its host is localhost');
  if (!local && uri.host !== serverHost) throw invalidGrant('URI in the Solana message is not allowed on this server');
  if (!local && siws.domain !== uri.host) throw invalidGrant('Domain in the Solana message does not match the URI host');
}

function checkTimes(siws: SiwsMessage, now: number): void {
  const issuedAt = Date.parse(siws.issuedAt);
  if (Math.abs(now - issuedAt) > MAX_SKEW_MS) throw invalidGrant('Solana message was not issued within the last 10 minutes');
  if (siws.notBefore && Date.parse(siws.notBefore) > now) throw invalidGrant('Solana message is not valid yet');
  if (siws.expirationTime && Date.parse(siws.expirationTime) <= now) throw invalidGrant('Solana message has expired');
}

/**
 * Checks a Web3 grant as hosted GoTrue does for Solana: message size and format, signature
 * encoding, the ed25519 signature over the exact message bytes, URI and domain, and the time
 * window. `serverHost` is the Host this server was reached by. Throws {@link AuthError}.
 */
export function verifyWeb3Grant(grant: Web3Grant, serverHost: string, now = Date.now()): SiwsMessage {
  if (grant.chain !== 'solana') throw validationFailed('Unsupported chain; only solana is enabled');
  const { message, signature } = grant;
  if (typeof message !== 'string') throw validationFailed('message is required');
  const size = Buffer.byteLength(message, 'utf8');
  if (size < MIN_MESSAGE_BYTES || size > MAX_MESSAGE_BYTES) throw validationFailed('message must be 64 bytes to 20 KB');
  if (typeof signature !== 'string' || (signature.length !== 86 && signature.length !== 88) || !/^[A-Za-z0-9+/_-]+={0,2}$/.test(signature)) {
    throw validationFailed('signature must be base64 or base64url encoded');
  }
  const signatureBytes = new Uint8Array(Buffer.from(signature, 'base64'));
  if (signatureBytes.length !== 64) throw validationFailed('signature must be 64 bytes');
  const siws = parseSiws(message);
  if (typeof siws === 'string') throw invalidGrant(`Invalid Solana sign-in message: ${siws}`);
  if (!verifyEd25519(siws.address, message, signatureBytes)) {
    throw invalidGrant('Signature does not match address in message');
  }
  checkUri(siws, serverHost);
  checkTimes(siws, now);
  return siws;
}
