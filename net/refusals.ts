/** Turns a refused write into a sentence a player understands. */
import { UNSUPPORTED_BLOCK } from '../components/support.js';
import { NAME_TAKEN } from '../components/text.js';

/** The parts of a PostgREST error that say why a write was refused. */
export interface RefusalLike {
  code?: string;
  message?: string;
}

/**
 * A short reason for a refused write. Rate limits, duplicates and policy refusals get their
 * own words; anything else shows the server's message, so no refusal is silent.
 */
export function describeRefusal(error: RefusalLike, subject: 'block' | 'chat' | 'voice' | 'attack'): string {
  const code = error.code ?? '';
  const message = error.message ?? '';
  if (code === 'TS429' || /rate limit|too many|slow down/i.test(message)) {
    return subject === 'chat' ? 'You are sending messages too fast. Slow down.' : 'Too fast. Slow down a little.';
  }
  if (code === '23505') return /taken by another player/.test(message) ? NAME_TAKEN : 'Someone already built there.';
  if (/spawn/i.test(message)) return 'Cannot build in spawn area - protected zone!';
  if (/^blocks on water need /i.test(message)) return UNSUPPORTED_BLOCK;
  if (/^This land is claimed by |^That would sink blocks on land claimed by /.test(message)) return message;
  if (code === '42501') return message.startsWith('banned from ') ? `You are ${message}` : 'The server did not allow that.';
  if (code === 'FETCH' || /fetch|network/i.test(message)) return 'The server could not be reached.';
  return message || 'The server refused the change.';
}
