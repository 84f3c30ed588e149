/** Turns a refused write into a sentence a player understands. */
import { UNSUPPORTED_BLOCK } from '../components/support.js';
import { SPAWN_PROTECTED } from '../components/terrain.js';
import { NAME_TAKEN } from '../components/text.js';
import { REFUSALS, refusalCode, type RefusalCode, type RefusalLike } from '../protocol/refusals.js';

/** What was refused: chat and voice have their own words for going too fast. */
type Subject = 'block' | 'chat' | 'voice' | 'attack';

/** The sentence for a refusal code, or null where the server's message (or the SQLSTATE) says it best. */
function sentenceOf(code: RefusalCode, subject: Subject, message: string): string | null {
  switch (code) {
    case REFUSALS.rate:
      return subject === 'chat' ? 'You are sending messages too fast. Slow down.' : 'Too fast. Slow down a little.';
    case REFUSALS.nameTaken:
      return NAME_TAKEN;
    case REFUSALS.spawn:
      return SPAWN_PROTECTED;
    case REFUSALS.water:
      return UNSUPPORTED_BLOCK;
    case REFUSALS.claimed:
      return message; // "This land is claimed by NAME.": the server names the owner.
    case REFUSALS.banned:
      return `You are ${message}`;
    default:
      return null;
  }
}

/**
 * A short reason for a refused write, chosen by the refusal's code (protocol/refusals.ts).
 * Without a code of its own sentence: a duplicate or a refused row by its SQLSTATE, a network
 * error as such, anything else the server's message, so no refusal is silent.
 */
export function describeRefusal(error: RefusalLike, subject: Subject): string {
  const code = error.code ?? '';
  const message = error.message ?? '';
  const refusal = code === 'TS429' ? REFUSALS.rate : refusalCode(error);
  const sentence = refusal && sentenceOf(refusal, subject, message);
  if (sentence) return sentence;
  if (code === '23505') return 'Someone already built there.';
  if (code === '42501') return 'The server did not allow that.';
  if (code === 'FETCH' || /fetch|network/i.test(message)) return 'The server could not be reached.';
  return message || 'The server refused the change.';
}
