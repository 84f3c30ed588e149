/**
 * The crowd benchmark's bystander, in a process of its own so that the load's busy event loop
 * adds nothing to what it measures: a signed-in player reading the blocks around spawn every
 * 100 ms, as a client does on load, for the given seconds. Arguments: server URL, anon key,
 * seconds. It signs in, prints `ready`, and starts reading at the first line on its standard
 * input, so its own start-up (a second of CPU) is over before the crowd is measured. Then it
 * prints one JSON array: the round trip of each read (ms).
 */
import { once } from 'node:events';
import { signInPlayer } from '../test/support/harness.js';
import { sleep } from '../test/support/wait.js';

const [url, anonKey, seconds] = process.argv.slice(2);
const bystander = await signInPlayer({ url: url!, anonKey: anonKey! });
console.log('ready');
await once(process.stdin, 'data');
const rest: number[] = [];
const until = performance.now() + Number(seconds) * 1000;
while (performance.now() < until) {
  const started = performance.now();
  const { error } = await bystander.client.from('game_blocks').select('x, y, block_type').gte('x', -12).lte('x', 12).gte('y', -9).lte('y', 9);
  if (error) throw new Error(`bystander read failed: ${error.message}`);
  rest.push(performance.now() - started);
  await sleep(100);
}
console.log(JSON.stringify(rest));
process.exit(0);
