/**
 * Signing a load bot in up front: a Sign-In-With-Solana message signed with the bot's own ed25519
 * key, posted as the Web3 grant supabase-js's `signInWithWeb3` posts, for the access token the bot
 * then uses on REST and Realtime. The server must be started with a Web3 sign-in limit above the
 * number of bots (the test servers' `RATE_LIMIT_WEB3`, test/support/server.ts).
 */
import { sign } from 'node:crypto';
import { createWalletKey } from '../harness.js';
import { send } from './rest.js';
import { siwsMessage } from '../web3-grant.js';
import { CLIENT_INFO } from './wire.js';

/** A wallet key of a bot, made before the server starts so its presence row can be seeded. */
export type BotKey = ReturnType<typeof createWalletKey>;

/** A signed-in bot: its wallet address and access token. */
export interface BotIdentity {
  address: string;
  accessToken: string;
}

/** Makes `count` fresh wallet keys. */
export function createBotKeys(count: number): BotKey[] {
  return Array.from({ length: count }, () => createWalletKey());
}

/**
 * Signs `key` in on the server at `url` for its site (`siteUrl`, else `url`), from the loopback
 * source address `localAddress` when given (the bot's own, see loopbackAddress in fleet.ts);
 * throws with the server's answer when refused.
 */
export async function signInBot(server: { url: string; anonKey: string; siteUrl?: string }, key: BotKey, localAddress?: string): Promise<BotIdentity> {
  const message = siwsMessage(key.address, { url: server.siteUrl ?? server.url });
  const signature = sign(null, Buffer.from(message), key.privateKey).toString('base64url');
  const headers = {
    apikey: server.anonKey,
    authorization: `Bearer ${server.anonKey}`,
    'content-type': 'application/json;charset=UTF-8',
    'x-client-info': CLIENT_INFO,
    'x-supabase-api-version': '2024-01-01',
  };
  const url = `${server.url.replace('//localhost:', '//127.0.0.1:')}/auth/v1/token?grant_type=web3`;
  const answer = await send(url, 'POST', headers, JSON.stringify({ chain: 'solana', message, signature }), localAddress);
  let body: { access_token?: string } = {};
  try {
    body = JSON.parse(answer.text) as { access_token?: string };
  } catch {
    // Not JSON: refused below with the text.
  }
  if (answer.status !== 200 || !body.access_token) throw new Error(`sign-in of ${key.address} refused: ${answer.status} ${answer.text}`);
  return { address: key.address, accessToken: body.access_token };
}
