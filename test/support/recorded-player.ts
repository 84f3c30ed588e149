/**
 * A headless player (the real `net/` session in Node) that records what reached it: the engine
 * events, every socket frame and the URL of every request. The chunk and claim suites count
 * frames and requests with it to show what a player hears and reads.
 */
import WebSocket from 'ws';
import type { NetEvent } from '../../components/network.js';
import { createTestWallet, signInPlayer, type ClientWiring, type TestServer } from './harness.js';
import { startHeadlessPlayer, type HeadlessPlayer } from './headless-player.js';

/** A headless player with its engine events, socket frames (as latin1 text) and request URLs. */
export type RecordedPlayer = HeadlessPlayer & { events: NetEvent[]; frames: string[]; urls: string[] };

/** A socket transport that records every frame received, as text. */
function recordingTransport(frames: string[]): typeof WebSocket {
  return class extends WebSocket {
    constructor(address: string, protocols?: string | string[]) {
      super(address, protocols);
      this.on('message', (data: Buffer) => frames.push(Buffer.from(data).toString('latin1')));
    }
  } as unknown as typeof WebSocket;
}

/**
 * Signs a new wallet in and starts its session named `name`, standing at pixel (x, y); requests go
 * through `wiring.fetch` when given.
 */
export async function enterRecorded(server: TestServer, name: string, x: number, y: number, wiring: Pick<ClientWiring, 'fetch'> = {}): Promise<RecordedPlayer> {
  const events: NetEvent[] = [];
  const frames: string[] = [];
  const urls: string[] = [];
  const inner = wiring.fetch ?? fetch;
  const fetchRecorded: typeof fetch = (input, init) => {
    urls.push(String(input instanceof Request ? input.url : input));
    return inner(input, init);
  };
  const player = await signInPlayer(server, createTestWallet(), { transport: recordingTransport(frames), fetch: fetchRecorded });
  const headless = await startHeadlessPlayer(server, player, { name, pose: { x, y, facing: 1, moving: false }, onEvent: (e) => events.push(e) });
  return Object.assign(headless, { events, frames, urls });
}
