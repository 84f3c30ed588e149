import { createHash, createPublicKey, verify } from 'node:crypto';
import { getBase58Encoder } from '@solana/web3.js';
import { AuthError } from './errors.js';
import type { Site } from './site.js';
import { parseSiws, type SiwsMessage } from './siws.js';

/** How old a message's Issued At may be (GoTrue's `MaximumValidityDuration` default). */
export const MAX_MESSAGE_AGE_MS = 10 * 60 * 1000;
/** How far in the future Issued At may lie: clock skew between wallet and server. */
export const MAX_CLOCK_SKEW_MS = 60 * 1000;
const MIN_MESSAGE_BYTES = 64;
const MAX_MESSAGE_BYTES = 20 * 1024;

/** The body of `POST /auth/v1/token?grant_type=web3`. */
export interface Web3Grant {
  chain?: unknown;
  message?: unknown;
  signature?: unknown;
}

/** A message that passed every check that needs no database. */
export interface VerifiedMessage {
  siws: SiwsMessage;
  /** SHA-256 of the message text: what the replay memory keys on. */
  digest: Buffer;
  /** When the message would be refused anyway (ms): the replay memory may forget it then. */
  usableUntil: number;
}

const invalidGrant = (message: string) => new AuthError(400, 'invalid_grant', message);
const validationFailed = (message: string) => new AuthError(400, 'validation_failed', message);

function verifyEd25519(address: string, message: string, signature: Uint8Array): boolean {
  const raw = getBase58Encoder().encode(address);
  if (raw.length !== 32) return false;
  const key = createPublicKey({ key: { kty: 'OKP', crv: 'Ed25519', x: Buffer.from(raw).toString('base64url') }, format: 'jwk' });
  return verify(null, Buffer.from(message, 'utf8'), key, signature);
}

/**
 * The URI must be this site's or on the allow-list, and the Domain must be the URI's host.
 * Unlike hosted GoTrue, the Domain check is not skipped for `localhost`: a message signed for
 * another site that names a localhost URI must not log in here.
 */
function checkSite(siws: SiwsMessage, site: Site): void {
  let uri: URL;
  try {
    uri = new URL(siws.uri);
  } catch {
    throw invalidGrant('Signed Solana message is using URI which is not a valid URL');
  }
  if (!site.allows(uri)) {
    throw invalidGrant('Signed Solana message is using URI which is not allowed on this server, message was signed for another app');
  }
  if (siws.domain !== uri.host) {
    throw invalidGrant('Signed Solana message is using a Domain that does not match the one in URI which is not allowed on this server');
  }
}

/** Checks the time window and returns until when the message could be used. */
function checkTimes(siws: SiwsMessage, now: number): number {
  const issuedAt = Date.parse(siws.issuedAt);
  const notBefore = siws.notBefore ? Date.parse(siws.notBefore) : null;
  const expiresAt = siws.expirationTime ? Date.parse(siws.expirationTime) : null;
  if (notBefore !== null && now < notBefore) throw invalidGrant('Signed Solana message becomes valid in the future');
  if (expiresAt !== null && now >= expiresAt) throw invalidGrant('Signed Solana message is expired');
  if (now > issuedAt + MAX_MESSAGE_AGE_MS) throw invalidGrant('Solana message was issued too long ago');
  if (issuedAt > now + MAX_CLOCK_SKEW_MS) throw invalidGrant('Solana message was issued too far in the future');
  return Math.min(issuedAt + MAX_MESSAGE_AGE_MS, expiresAt ?? Infinity);
}

/**
 * Checks a Web3 grant as hosted GoTrue does for Solana, and stricter: message size and format,
 * signature encoding, the ed25519 signature over the exact message bytes, URI on `site`'s
 * allow-list and Domain equal to the URI host (localhost included), Not Before, Expiration Time
 * and Issued At (at most 10 minutes old, at most a minute ahead). Throws {@link AuthError}.
 */
export function verifyWeb3Grant(grant: Web3Grant, site: Site, now = Date.now()): VerifiedMessage {
  if (grant.chain !== 'solana') throw validationFailed('Unsupported chain; only solana is enabled');
  const { message, signature } = grant;
  if (typeof message !== 'string') throw validationFailed('message is required');
  const size = Buffer.byteLength(message, 'utf8');
  if (size < MIN_MESSAGE_BYTES) throw validationFailed('message is too short');
  if (size > MAX_MESSAGE_BYTES) throw validationFailed('message must not exceed 20KB');
  if (typeof signature !== 'string' || (signature.length !== 86 && signature.length !== 88)) {
    throw validationFailed('signature must be 64 bytes encoded as base64 with or without padding');
  }
  if (!/^[A-Za-z0-9+/_-]+={0,2}$/.test(signature)) throw validationFailed('signature does not contain valid base64 characters');
  const signatureBytes = new Uint8Array(Buffer.from(signature, 'base64'));
  if (signatureBytes.length !== 64) throw validationFailed('signature must be 64 bytes encoded as base64 with or without padding');
  const siws = parseSiws(message);
  if (typeof siws === 'string') throw validationFailed(`Invalid Solana sign-in message: ${siws}`);
  if (!verifyEd25519(siws.address, message, signatureBytes)) {
    throw invalidGrant('Signature does not match address in message');
  }
  checkSite(siws, site);
  const usableUntil = checkTimes(siws, now);
  return { siws, digest: createHash('sha256').update(message, 'utf8').digest(), usableUntil };
}
