/**
 * Stop benchmark: PLAYERS signed-in players (default 250; `--quick` 50), each a supabase-js client
 * subscribed to chat inserts, as the game's chat is. Then SIGTERM: the time until the server
 * exited (target under 10 s), its exit code, and how many players saw the SERVER restart line in
 * chat before their socket closed. Median of the runs.
 */
import { median, pick, printHeader, round } from './stats.js';
import { signInPlayer, startTestServer, type TestPlayer } from '../test/support/harness.js';
import { subscribeChannel } from '../test/support/live.js';

const PLAYERS = pick(250, 50);
const RUNS = pick(3, 1);

printHeader('stop', { warmups: 0, runs: RUNS, players: PLAYERS });
const times: number[] = [];
for (let run = 0; run < RUNS; run++) {
  const server = await startTestServer();
  const players: TestPlayer[] = [];
  for (let i = 0; i < PLAYERS; i += 25) players.push(...(await Promise.all(Array.from({ length: Math.min(25, PLAYERS - i) }, () => signInPlayer(server)))));
  let told = 0;
  await Promise.all(players.map((player, i) => subscribeChannel(
    player.client.channel(`chat-${i}`)
      .on('postgres_changes', { event: 'INSERT', schema: 'public', table: 'game_chat_messages' }, (change) => {
        if ((change.new as { player_name: string }).player_name === 'SERVER') told++;
      }),
  )));
  const started = performance.now();
  const code = await server.stop();
  const ms = performance.now() - started;
  times.push(ms);
  console.log(JSON.stringify({ bench: 'stop', case: 'sigterm', run, players: PLAYERS, exit_code: code, ms: round(ms, 0), players_told: told }));
  await Promise.all(players.map((player) => player.client.removeAllChannels()));
}
console.log(JSON.stringify({ bench: 'stop', case: 'median', players: PLAYERS, median_ms: round(median(times), 0) }));
