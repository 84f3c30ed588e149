/**
 * Chat: the last 50 messages, then live inserts (duplicates by id ignored). When the live
 * channel is not up within 5 s, or times out or errors, the chat polls every 2 s until the
 * channel is back.
 */
import type { RealtimeChannel, SupabaseClient } from '@supabase/supabase-js';
import { CHAT_MAX_LENGTH } from '../protocol/rules.js';
import { CHAT_HISTORY, CHAT_POLL_MS, CHAT_SUBSCRIBE_GRACE_MS } from './constants.js';
import { describeRefusal } from './refusals.js';
import type { ChatRow } from './rows.js';

/** What the chat needs from its surroundings. */
export interface ChatOptions {
  playerId: string;
  playerName(): string;
  /** Receives the whole list, oldest first, every time it changes. */
  onMessages(messages: readonly ChatRow[]): void;
  /** Called for each new message (for the online count). */
  onActivity?(playerId: string, at: number): void;
  /** Called for each message by another player that arrives after the history was loaded. */
  onArrival?(row: ChatRow): void;
}

/** The chat side of the network session. */
export interface Chat {
  /** Sends a message; resolves to null when sent, or to the reason it was refused. */
  send(text: string): Promise<string | null>;
  /** Whether the chat is polling instead of listening live. */
  polling(): boolean;
  close(): Promise<void>;
}

/** The messages kept, oldest first: at most CHAT_HISTORY, each once (by id). */
interface ChatHistory {
  /** Adds the rows not kept yet; tells `onMessages` the whole list when it changed. */
  add(rows: readonly ChatRow[]): void;
  /** The history was read once: from now on, messages by others are arrivals. */
  markLoaded(): void;
  isEmpty(): boolean;
}

/** An empty history telling `options` of what it keeps. */
function createChatHistory(options: ChatOptions): ChatHistory {
  const messages: ChatRow[] = [];
  const ids = new Set<string>();
  let loaded = false;
  return {
    add(rows) {
      let changed = false;
      for (const row of rows) {
        if (ids.has(row.id)) continue;
        ids.add(row.id);
        messages.push(row);
        options.onActivity?.(row.player_id, Date.parse(row.created_at));
        if (loaded && row.player_id !== options.playerId) options.onArrival?.(row);
        changed = true;
      }
      if (!changed) return;
      messages.sort((a, b) => a.created_at.localeCompare(b.created_at));
      while (messages.length > CHAT_HISTORY) ids.delete(messages.shift()!.id);
      options.onMessages([...messages]);
    },
    markLoaded() {
      loaded = true;
    },
    isEmpty: () => messages.length === 0,
  };
}

/** Loads the history and starts listening. */
export function createChat(db: SupabaseClient, options: ChatOptions): Chat {
  const history = createChatHistory(options);
  let pollTimer: ReturnType<typeof setInterval> | null = null;

  async function fetchLatest(): Promise<void> {
    const { data, error } = await db
      .from('game_chat_messages')
      .select('*')
      .order('created_at', { ascending: false })
      .limit(CHAT_HISTORY);
    if (error) {
      console.error('loading chat failed:', error.code, error.message);
      return;
    }
    const rows = (data as ChatRow[]).reverse();
    if (rows.length === 0 && history.isEmpty()) options.onMessages([]);
    history.add(rows);
    history.markLoaded();
  }

  function startPolling() {
    if (pollTimer) return;
    pollTimer = setInterval(() => void fetchLatest(), CHAT_POLL_MS);
  }

  function stopPolling() {
    if (pollTimer) clearInterval(pollTimer);
    pollTimer = null;
  }

  const grace = setTimeout(() => {
    if (channel.state !== 'joined') startPolling();
  }, CHAT_SUBSCRIBE_GRACE_MS);

  const channel: RealtimeChannel = db
    .channel('game_chat_messages')
    .on('postgres_changes', { event: 'INSERT', schema: 'public', table: 'game_chat_messages' }, (change) => {
      history.add([change.new as ChatRow]);
    })
    .subscribe((status) => {
      if (status === 'SUBSCRIBED') {
        stopPolling();
        // Catch up on anything said while the channel was down.
        void fetchLatest();
      } else if (status === 'TIMED_OUT' || status === 'CHANNEL_ERROR') {
        startPolling();
      }
    });

  return {
    async send(text) {
      const message = text.trim();
      if (!message) return null;
      const { data, error } = await db
        .from('game_chat_messages')
        .insert({ player_id: options.playerId, player_name: options.playerName(), message: message.slice(0, CHAT_MAX_LENGTH) })
        .select()
        .single();
      if (error) {
        console.error('chat send failed:', error.code, error.message);
        return describeRefusal(error, 'chat');
      }
      history.add([data as ChatRow]);
      return null;
    },
    polling: () => pollTimer !== null,
    close: async () => {
      clearTimeout(grace);
      stopPolling();
      await db.removeChannel(channel);
    },
  };
}
