/** The chat's moderation helpers: reading /mute and /unmute, hiding muted wallets' lines, telling a ban. */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { parseChatCommand, visibleChat } from '../../../net/moderation.js';
import { describeRefusal } from '../../../net/refusals.js';
import { REFUSALS } from '../../../protocol/refusals.js';
import type { ChatRow } from '../../../net/rows.js';

test('parseChatCommand reads /mute NAME and /unmute NAME, nothing else', () => {
  assert.equal(parseChatCommand('/mute Alice'), { kind: 'mute', name: 'Alice' });
  assert.equal(parseChatCommand('  /UNMUTE   Big Bob  '), { kind: 'unmute', name: 'Big Bob' });
  assert.is(parseChatCommand('/mute'), null);
  assert.is(parseChatCommand('/muted Alice'), null);
  assert.is(parseChatCommand('please /mute Alice'), null);
  assert.is(parseChatCommand('hello'), null);
});

test('visibleChat drops the lines of muted wallets only', () => {
  const line = (id: string, player_id: string) => ({ id, player_id, player_name: player_id, message: 'hi', created_at: '2026-01-01T00:00:00Z' }) as ChatRow;
  const rows = [line('1', 'a'), line('2', 'b'), line('3', 'a'), line('4', 'c')];
  assert.equal(visibleChat(rows, new Set(['a'])).map((row) => row.id), ['2', '4']);
  assert.equal(visibleChat(rows, new Set()).map((row) => row.id), ['1', '2', '3', '4']);
});

test('a ban refusal is told with its reason; other policy refusals stay generic', () => {
  assert.is(describeRefusal({ code: '42501', message: 'banned from chat and voice: spam links', hint: REFUSALS.banned }, 'chat'), 'You are banned from chat and voice: spam links');
  assert.is(describeRefusal({ code: '42501', message: 'new row violates row-level security policy for table "game_chat_messages"' }, 'chat'), 'The server did not allow that.');
});

test.run();
