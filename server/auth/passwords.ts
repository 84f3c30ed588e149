import { randomBytes, scrypt, timingSafeEqual, type ScryptOptions } from 'node:crypto';

/**
 * Password hashing with scrypt (N = 2^15, r = 8, p = 1: about 32 MiB and tens of milliseconds
 * per hash) and a random 16-byte salt per password. Stored as
 * `$scrypt$ln=15,r=8,p=1$<salt>$<hash>` (base64url), so the cost can be raised later while
 * older hashes still verify.
 */

const LOG2_COST = 15;
const BLOCK_SIZE = 8;
const PARALLELISM = 1;
const KEY_BYTES = 32;
const SALT_BYTES = 16;
/** Highest cost a stored hash may ask for: verifying must not be turned into a memory bomb. */
const MAX_LOG2_COST = 17;

const FORMAT = /^\$scrypt\$ln=(\d+),r=(\d+),p=(\d+)\$([A-Za-z0-9_-]+)\$([A-Za-z0-9_-]+)$/;

function derive(password: string, salt: Buffer, log2Cost: number, blockSize: number, parallelism: number, bytes: number): Promise<Buffer> {
  const cost = 2 ** log2Cost;
  const options: ScryptOptions = { N: cost, r: blockSize, p: parallelism, maxmem: 256 * cost * blockSize };
  return new Promise((resolve, reject) =>
    scrypt(password.normalize('NFKC'), salt, bytes, options, (error, key) => (error ? reject(error) : resolve(key))),
  );
}

/** Hashes `password` with a fresh salt. */
export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(SALT_BYTES);
  const key = await derive(password, salt, LOG2_COST, BLOCK_SIZE, PARALLELISM, KEY_BYTES);
  return `$scrypt$ln=${LOG2_COST},r=${BLOCK_SIZE},p=${PARALLELISM}$${salt.toString('base64url')}$${key.toString('base64url')}`;
}

interface StoredHash {
  log2Cost: number;
  blockSize: number;
  parallelism: number;
  salt: Buffer;
  key: Buffer;
}

/** Reads a stored hash; null when it is not one this server made or asks for too much work. */
function parseHash(stored: string): StoredHash | null {
  const match = FORMAT.exec(stored);
  if (!match) return null;
  const [log2Cost, blockSize, parallelism] = [Number(match[1]), Number(match[2]), Number(match[3])];
  const key = Buffer.from(match[5]!, 'base64url');
  const sane = log2Cost >= 10 && log2Cost <= MAX_LOG2_COST && blockSize >= 1 && blockSize <= 16
    && parallelism >= 1 && parallelism <= 4 && key.length >= 16 && key.length <= 64;
  return sane ? { log2Cost, blockSize, parallelism, salt: Buffer.from(match[4]!, 'base64url'), key } : null;
}

/**
 * Whether `password` matches `stored`, compared in constant time. Without a usable hash (a
 * wallet user, a hash of another scheme) a dummy hash is computed, so the answer takes as long
 * as for a real user, and is false.
 */
export async function verifyPassword(password: string, stored: string | null): Promise<boolean> {
  const hash = stored === null ? null : parseHash(stored);
  if (!hash) {
    await derive(password, randomBytes(SALT_BYTES), LOG2_COST, BLOCK_SIZE, PARALLELISM, KEY_BYTES);
    return false;
  }
  const key = await derive(password, hash.salt, hash.log2Cost, hash.blockSize, hash.parallelism, hash.key.length);
  return timingSafeEqual(key, hash.key);
}
