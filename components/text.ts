/**
 * Clean text: the characters a player name or a chat message may not contain, and the key two
 * names collide on. The server holds the same rules and messages
 * (supabase/migrations/20250201000100_clean_text.sql, 20250201000200_held_names.sql); the
 * client checks first so the player reads the reason before anything is sent.
 */

/** U+0000-001F and U+007F-009F. */
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;
/** Marks, embeddings, overrides and isolates: U+200E-200F, U+202A-202E, U+2066-2069. */
const DIRECTION = /[\u200e\u200f\u202a-\u202e\u2066-\u2069]/;
/** Zero-width and invisible characters: U+200B-200D, U+2060, U+FEFF. */
const INVISIBLE = /[\u200b-\u200d\u2060\ufeff]/;
const INVISIBLE_ALL = new RegExp(INVISIBLE.source, 'g');

/** How many days a name stays held after its holder was last in the world. */
export const HELD_NAME_DAYS = 30;

/** The message shown when another player holds a name. */
export const NAME_TAKEN = 'That name is taken by another player.';

/** Why `name` cannot be a player name, in the server's words; null when its characters are fine. */
export function nameProblem(name: string): string | null {
  if (CONTROL.test(name)) return 'Names cannot contain control characters.';
  if (DIRECTION.test(name)) return 'Names cannot contain direction controls.';
  if (INVISIBLE.test(name)) return 'Names cannot contain invisible characters.';
  return null;
}

/** A name as the server stores it: NFKC-normalised. */
export function normaliseName(name: string): string {
  return name.normalize('NFKC');
}

/** The key two names collide on: NFKC, then lower case ('Alice' and 'ＡＬＩＣＥ' share 'alice'). */
export function nameKey(name: string): string {
  return name.normalize('NFKC').toLowerCase();
}

/** Why `message` cannot be sent as chat, in the server's words; null when it can. */
export function chatProblem(message: string): string | null {
  if (CONTROL.test(message)) return 'Messages cannot contain control characters.';
  if (DIRECTION.test(message)) return 'Messages cannot contain direction controls.';
  return null;
}

/** A chat message without its invisible characters, as the server stores it. */
export function stripInvisible(message: string): string {
  return message.replace(INVISIBLE_ALL, '');
}
