/**
 * A player's moderation tools: personal mutes (kept on the server, read and written only by the
 * muter), reports, and the chat commands /mute NAME and /unmute NAME. The server hides muted
 * wallets' voice clips itself; chat lines of muted wallets are hidden by {@link visibleChat}.
 */
import type { SupabaseClient } from '@supabase/supabase-js';
import { REFUSALS, refusalCode, type RefusalLike } from '../protocol/refusals.js';
import { REPORT_NOTE_MAX, type ReportReason } from '../protocol/rules.js';
import { describeRefusal } from './refusals.js';
import type { ChatRow } from './rows.js';

/** A muted wallet and the name it was muted under. */
export interface Muted {
  wallet: string;
  name: string;
}

/** A chat command the input understands. */
export type ChatCommand = { kind: 'mute' | 'unmute'; name: string };

/** Reads `/mute NAME` or `/unmute NAME` (case-insensitive command, name trimmed); null for anything else. */
export function parseChatCommand(text: string): ChatCommand | null {
  const match = /^\/(mute|unmute)\s+(.+)$/i.exec(text.trim());
  return match ? { kind: match[1]!.toLowerCase() as 'mute' | 'unmute', name: match[2]!.trim() } : null;
}

/** `messages` without the lines of muted wallets. */
export function visibleChat(messages: readonly ChatRow[], muted: ReadonlySet<string>): ChatRow[] {
  return muted.size === 0 ? [...messages] : messages.filter((message) => !muted.has(message.player_id));
}

/** What {@link createModeration} needs. */
export interface ModerationOptions {
  playerId: string;
  /** Receives the whole mute list every time it changes. */
  onMutes(muted: readonly Muted[]): void;
}

/** The moderation side of the network session. Each action resolves to null when done, or to the reason it was refused. */
export interface Moderation {
  mute(wallet: string, name: string): Promise<string | null>;
  unmute(wallet: string): Promise<string | null>;
  /** Mutes or unmutes the wallet holding `name` (as /mute and /unmute do). */
  runCommand(command: ChatCommand): Promise<string | null>;
  report(wallet: string, reason: ReportReason, note: string): Promise<string | null>;
}

function reportRefusal(error: RefusalLike): string {
  const code = refusalCode(error);
  if (code === REFUSALS.rate) return 'You can send at most 5 reports an hour.';
  if (code === REFUSALS.openReport) return 'You already reported this player; an operator will look at it.';
  return describeRefusal(error, 'chat');
}

/** Loads the player's mutes and returns the actions. */
export async function createModeration(db: SupabaseClient, options: ModerationOptions): Promise<Moderation> {
  const muted = new Map<string, string>();
  const publish = () => options.onMutes([...muted].map(([wallet, name]) => ({ wallet, name })));
  const { data, error } = await db.from('game_mutes').select('muted_id');
  if (error) console.error('loading mutes failed:', error.code, error.message);
  const wallets = ((data ?? []) as { muted_id: string }[]).map((row) => row.muted_id);
  const byWallet = new Map<string, string>();
  // The server takes at most 100 values in one in-list.
  for (let from = 0; from < wallets.length; from += 100) {
    const names = await db.from('game_held_names').select('player_id,player_name').in('player_id', wallets.slice(from, from + 100));
    for (const row of (names.data ?? []) as { player_id: string; player_name: string }[]) byWallet.set(row.player_id, row.player_name);
  }
  for (const wallet of wallets) muted.set(wallet, byWallet.get(wallet) ?? wallet.slice(0, 8));
  publish();

  const mute = async (wallet: string, name: string): Promise<string | null> => {
    if (wallet === options.playerId) return 'You cannot mute yourself.';
    if (muted.has(wallet)) return null;
    const { error: refused } = await db.from('game_mutes').insert({ player_id: options.playerId, muted_id: wallet });
    if (refused && refused.code !== '23505') return describeRefusal(refused, 'chat');
    muted.set(wallet, name);
    publish();
    return null;
  };
  const unmute = async (wallet: string): Promise<string | null> => {
    const { error: refused } = await db.from('game_mutes').delete().eq('player_id', options.playerId).eq('muted_id', wallet);
    if (refused) return describeRefusal(refused, 'chat');
    muted.delete(wallet);
    publish();
    return null;
  };

  return {
    mute,
    unmute,
    async runCommand(command) {
      if (command.kind === 'unmute') {
        const wallet = [...muted].find(([, name]) => name.toLowerCase() === command.name.toLowerCase())?.[0];
        if (wallet) return unmute(wallet);
      }
      const { data: key } = await db.rpc('player_name_key', { name: command.name });
      const { data: holder } = await db.from('game_held_names').select('player_id,player_name').eq('name_key', key ?? '').maybeSingle();
      if (!holder) return `No player is called ${command.name}.`;
      const { player_id: wallet, player_name: name } = holder as { player_id: string; player_name: string };
      return command.kind === 'mute' ? mute(wallet, name) : unmute(wallet);
    },
    async report(wallet, reason, note) {
      const { error: refused } = await db
        .from('game_reports')
        .insert({ reporter_id: options.playerId, reported_id: wallet, reason, note: note.trim().slice(0, REPORT_NOTE_MAX) });
      return refused ? reportRefusal(refused) : null;
    },
  };
}
