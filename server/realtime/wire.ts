import type { Duplex } from 'node:stream';

const FIN_TEXT = 0x81;

/**
 * Frames `text` as one unmasked server-to-client WebSocket text frame (RFC 6455 §5.2).
 * A change that many clients receive identically is framed once and the same bytes are
 * written to every socket.
 */
export function textFrame(text: string): Buffer {
  const body = Buffer.from(text);
  const n = body.length;
  const headerLength = n < 126 ? 2 : n < 65536 ? 4 : 10;
  const frame = Buffer.allocUnsafe(headerLength + n);
  frame[0] = FIN_TEXT;
  if (n < 126) {
    frame[1] = n;
  } else if (n < 65536) {
    frame[1] = 126;
    frame.writeUInt16BE(n, 2);
  } else {
    frame[1] = 127;
    frame.writeBigUInt64BE(BigInt(n), 2);
  }
  body.copy(frame, headerLength);
  return frame;
}

/**
 * Writes pre-framed buffers to a WebSocket's socket in one corked batch (one writev).
 * Safe beside the `ws` library's own sends because both write whole frames synchronously.
 */
export function writeFrames(socket: Duplex, frames: Buffer[]): void {
  if (frames.length === 0 || socket.destroyed || !socket.writable) return;
  socket.cork();
  for (const frame of frames) socket.write(frame);
  socket.uncork();
}
