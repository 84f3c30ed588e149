import type { IncomingMessage } from 'node:http';

/** Thrown when a request body exceeds the limit. */
export class BodyTooLargeError extends Error {
  constructor(readonly limit: number) {
    super(`request body larger than ${limit} bytes`);
    this.name = 'BodyTooLargeError';
  }
}

/**
 * Bytes of an oversized body still read and thrown away after the refusal, so the client, which
 * is still sending, receives the 413 instead of a broken pipe; past this the socket is dropped.
 */
const DISCARD_LIMIT = 16 * 1024 * 1024;

/**
 * Reads the whole request body as UTF-8 (see {@link readBodyBytes} for the limit).
 */
export async function readBody(req: IncomingMessage, limit: number): Promise<string> {
  return (await readBodyBytes(req, limit)).toString('utf8');
}

/**
 * Reads the whole request body, refusing it with {@link BodyTooLargeError} as soon as it passes
 * `limit` bytes (checked on Content-Length first, then while streaming). The rest of a body
 * refused mid-stream is read and discarded (up to {@link DISCARD_LIMIT}), so the refusal reaches
 * the client.
 */
export function readBodyBytes(req: IncomingMessage, limit: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const refuse = () => {
      req.off('data', collect);
      let discarded = 0;
      req.on('data', (rest: Buffer) => {
        discarded += rest.length;
        if (discarded > DISCARD_LIMIT) req.socket.destroy();
      });
      reject(new BodyTooLargeError(limit));
    };
    const collect = (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) refuse();
      else chunks.push(chunk);
    };
    req.on('data', collect);
    req.once('end', () => resolve(Buffer.concat(chunks)));
    req.once('error', reject);
    if (Number(req.headers['content-length'] ?? 0) > limit) refuse();
  });
}
