import type { IncomingMessage } from 'node:http';

/** Thrown when a request body exceeds the limit. */
export class BodyTooLargeError extends Error {
  constructor(readonly limit: number) {
    super(`request body larger than ${limit} bytes`);
    this.name = 'BodyTooLargeError';
  }
}

/**
 * Reads the whole request body as UTF-8, refusing it with {@link BodyTooLargeError} as soon as
 * it passes `limit` bytes (checked on Content-Length first, then while streaming).
 */
export async function readBody(req: IncomingMessage, limit: number): Promise<string> {
  const declared = Number(req.headers['content-length'] ?? 0);
  if (declared > limit) throw new BodyTooLargeError(limit);
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > limit) throw new BodyTooLargeError(limit);
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
}
