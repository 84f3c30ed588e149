/**
 * Moderation benchmark against the built server (TESSERA_SERVER or dist/server.mjs), one JSON
 * line per result.
 *   ban:      RUNS times, a fresh wallet stands at spawn with a postgres_changes channel open; an
 *             operator bans it from play. Milliseconds from sending the ban until another
 *             player hears its presence row deleted, and until the banned wallet's channel is
 *             closed (the bound: 2,000 ms).
 *   rollback: RUNS times, a fresh wallet places BLOCKS blocks around spawn (new tiles each run); the operator previews,
 *             rolls back and undoes them. Milliseconds per call.
 */
import { createTestWallet, signInPlayer, startTestServer, type TestPlayer } from '../test/support/harness.js';
import { nameOf, playerAtSpawn, tilesInViewOfSpawn } from '../test/support/rules.js';
import { waitFor } from '../test/support/wait.js';
import { QUICK, printHeader, spread } from './stats.js';
import { subscribeChannel } from '../test/support/live.js';

const RUNS = QUICK ? 2 : 5;
const BLOCKS = 40;

async function main(): Promise<void> {
  printHeader('moderation', { warmups: 0, runs: RUNS, blocks: BLOCKS });
  const operatorWallet = createTestWallet();
  const server = await startTestServer(undefined, { OPERATOR_WALLETS: operatorWallet.address });
  try {
    const op = await signInPlayer(server, operatorWallet);
    const watcher = await playerAtSpawn(server);
    const gone: string[] = [];
    const channel = watcher.client.channel('players').on('postgres_changes' as never, { event: 'DELETE', schema: 'public', table: 'game_players' }, (change: { old: { player_id: string } }) => {
      gone.push(change.old.player_id);
    });
    await subscribeChannel(channel);

    const presenceGone: number[] = [];
    const channelClosed: number[] = [];
    for (let run = 0; run < RUNS; run++) {
      const victim: TestPlayer = await playerAtSpawn(server);
      let closedAt = 0;
      const own = victim.client.channel(`own-${run}`).on('postgres_changes' as never, { event: 'INSERT', schema: 'public', table: 'game_chat_messages' }, () => undefined);
      await new Promise<void>((resolve) =>
        own.subscribe((status) => {
          if (status === 'SUBSCRIBED') resolve();
          if (status === 'CLOSED') closedAt = performance.now();
        }),
      );
      const start = performance.now();
      const { error } = await op.client.from('game_bans').insert({ player_id: victim.address, scope: 'play', reason: 'bench' });
      if (error) throw new Error(error.message);
      await waitFor(() => gone.includes(victim.address), { timeout: 5000, interval: 1 });
      presenceGone.push(performance.now() - start);
      await waitFor(() => closedAt > 0, { timeout: 5000, interval: 1 });
      channelClosed.push(closedAt - start);
    }
    console.log(JSON.stringify({ bench: 'moderation', case: 'ban', runs: RUNS, presence_gone_ms: spread(presenceGone), channel_closed_ms: spread(channelClosed) }));

    const preview: number[] = [];
    const apply: number[] = [];
    const undo: number[] = [];
    for (let run = 0; run < RUNS; run++) {
      // Tiles of their own for each run: the undone blocks of the last one stay.
      const tiles = tilesInViewOfSpawn().slice(run * BLOCKS, (run + 1) * BLOCKS);
      const griefer = await playerAtSpawn(server);
      const since = new Date(Date.now() - 1000).toISOString();
      const { error } = await griefer.client.from('game_blocks').insert(tiles.map(({ x, y }) => ({ x, y, block_type: 'dirt', player_id: griefer.address, player_name: nameOf(griefer) })));
      if (error) throw new Error(error.message);
      const request = { wallet: griefer.address, since, x: 0, y: 0, radius: 20 };
      const timed = async (into: number[], call: () => PromiseLike<{ error: { message: string } | null; data: unknown }>) => {
        const start = performance.now();
        const result = await call();
        into.push(performance.now() - start);
        if (result.error) throw new Error(result.error.message);
        return result.data;
      };
      await timed(preview, () => op.client.rpc('rollback_edits', { ...request, dry_run: true }));
      const done = (await timed(apply, () => op.client.rpc('rollback_edits', { ...request, dry_run: false }))) as { id: number; removed: number };
      if (done.removed !== BLOCKS) throw new Error(`rolled back ${done.removed} of ${BLOCKS}`);
      await timed(undo, () => op.client.rpc('undo_rollback', { id: done.id }));
    }
    console.log(JSON.stringify({ bench: 'moderation', case: 'rollback', runs: RUNS, blocks: BLOCKS, preview_ms: spread(preview), rollback_ms: spread(apply), undo_ms: spread(undo) }));
  } finally {
    await server.stop();
  }
}

await main();
// The banned players' clients keep retrying their sockets against the stopped server.
process.exit(0);
