/**
 * One world on one node and on two (test/support/cluster.ts: one Redis, one PostgreSQL, which the
 * first node runs), loaded by the protocol-level bots (test/support/load/), as JSON lines:
 *
 * - "cpu": the same crowd (PLAYERS in one screen, then PLAYERS in groups of eight far apart) on
 *   one node, then split evenly over two: CPU of the nodes' own processes (/proc/<pid>/stat) per
 *   player and second, and the ratio two nodes / one. Full runs measure CROWD_RUNS pairs of
 *   clusters (one node, two nodes, the order swapped each run) and print medians and each run's ratio,
 *   with what the nodes delivered (poses heard and bytes sent per player and second) and
 *   PostgreSQL's CPU per player and second, one node's figure then two nodes'.
 * - "poses": in the two-node screen crowd, pose latency (the sender's clock to its receipt) p99
 *   between bots on the same node and on different nodes, and the bus's publish-to-delivery
 *   p50/p99 (`tessera_bus_delivery_seconds` of every node: a bucket's upper bound), medians over
 *   the runs of "cpu", with each run's cross-node minus same-node p99.
 * - "blocks": builders on node 1 place and remove blocks in one region; a listener on node 1 and
 *   one on node 2 follow its blocks topic: p99 from a change's request to its arrival on each, and
 *   changes node 2 heard in another order than node 1 delivered them.
 * - "placements": block placements a second acknowledged with BUILDERS builders, all on one node,
 *   then split over two (each builder keeps to a wallet's rate: the offered rate is printed).
 * - "node_loss": a crowd on two nodes and builders on node 2; node 2 is killed, and each of its
 *   players signs in on node 1 and enters the world again: seconds until each is back, and
 *   placements node 2 acknowledged that the database does not hold.
 *
 * `--quick` runs smaller, shorter cases; `--case=cpu,poses,blocks,placements,node_loss` picks cases.
 */
import pg from 'pg';
import { startCluster, type TestCluster } from '../test/support/cluster.js';
import { LoadFigures } from '../test/support/load/figures.js';
import { signInBot } from '../test/support/load/sign-in.js';
import { sleep, waitFor } from '../test/support/wait.js';
import {
  busDeliveryBuckets, busPercentileMs, clusterCpu, matchArrivals, outOfOrder, startBuilders, startCrowd, startListeners,
  type BlockChangeSent, type Builder, type Heard, type Shape,
} from './cluster-load.js';
import { inBatches } from './capacity-support.js';
import { median, percentile, pick, printHeader, printRow, round } from './stats.js';

const CASES = (process.argv.find((arg) => arg.startsWith('--case='))?.slice('--case='.length) ?? 'cpu,poses,blocks,placements,node_loss').split(',');
const PLAYERS = pick(250, 40);
const SECONDS = pick(20, 6);
/** Runs of the crowds (cpu, poses), each on a new cluster of one node and of two. */
const CROWD_RUNS = pick(3, 1);
const WALK_WARMUP_MS = 2000;
const SHAPES: Shape[] = ['screen', 'spread'];
/** Block changes the blocks case makes, and its builders. */
const CHANGES = pick(100_000, 300);
const BLOCK_BUILDERS = pick(40, 4);
/** Builders of the placements case, and tiles each takes turns on. */
const BUILDERS = pick(100, 10);
const BUILDER_TILES = 8;
const LOSS_PLAYERS = pick(100, 20);
const LOSS_BUILDERS = pick(8, 2);
/** Where the builders of each case stand, each case on tiles of its own: the blocks case in region (3, 0). */
const BUILD_AT = { x: 2672, y: -400 };
const PLACEMENTS_AT = { x: -6000, y: 3000 };
const LOSS_AT = { x: 2672, y: 3000 };

/** What one crowd run measured. */
interface CrowdRun {
  players: number;
  ready: number;
  /** Milliseconds of node CPU per player and second: all nodes, and each. */
  msPerPlayerS: number;
  perNode: number[];
  postgresMsPerPlayerS: number;
  sameNodeP99: number;
  crossNodeP99: number;
  busP50: number;
  busP99: number;
  /** Poses each player heard a second, and bytes the server sent each player a second: the delivery work, which should not change with the nodes. */
  heardPerPlayerS: number;
  bytesPerPlayerS: number;
}

/** Runs a crowd of `shape` over the cluster's nodes, measuring SECONDS of walking. */
async function runCrowd(cluster: TestCluster, shape: Shape, prefix: string): Promise<CrowdRun> {
  const crowd = await startCrowd(cluster, shape, PLAYERS, prefix);
  try {
    for (const fleet of crowd.fleets) fleet.walk(1000);
    await sleep(WALK_WARMUP_MS);
    crowd.figures.recording = true;
    const busBefore = await busDeliveryBuckets(cluster.nodes);
    const before = await clusterCpu(cluster);
    await sleep(SECONDS * 1000);
    const after = await clusterCpu(cluster);
    const busAfter = await busDeliveryBuckets(cluster.nodes);
    crowd.figures.recording = false;
    const perNode = after.nodes.map((cpu, i) => (cpu - before.nodes[i]!) * 1000 / PLAYERS / SECONDS);
    const run: CrowdRun = {
      players: PLAYERS,
      ready: crowd.fleets.reduce((sum, fleet) => sum + fleet.bots.filter((bot) => bot.ready()).length, 0),
      msPerPlayerS: perNode.reduce((sum, ms) => sum + ms, 0),
      perNode: perNode.map((ms) => round(ms, 3)),
      postgresMsPerPlayerS: (after.postgres - before.postgres) * 1000 / PLAYERS / SECONDS,
      sameNodeP99: crowd.figures.poseLatency.percentile(99),
      crossNodeP99: crowd.figures.otherFleetPoseLatency.percentile(99),
      busP50: busPercentileMs(busBefore, busAfter, 50),
      busP99: busPercentileMs(busBefore, busAfter, 99),
      heardPerPlayerS: (crowd.figures.poseLatency.total + crowd.figures.otherFleetPoseLatency.total) / PLAYERS / SECONDS,
      bytesPerPlayerS: crowd.figures.bytes / PLAYERS / SECONDS,
    };
    console.error(`cluster: ${cluster.nodes.length} node(s), ${shape}: ${JSON.stringify(run)} refusals ${JSON.stringify(Object.fromEntries(crowd.figures.refusals))}`);
    return run;
  } finally {
    await crowd.stop();
  }
}

/** Block placements a second acknowledged by BUILDERS builders spread over the cluster's nodes. */
async function runPlacements(cluster: TestCluster): Promise<{ perS: number; offeredPerS: number; refusals: Record<string, number> }> {
  const figures = new LoadFigures(0);
  figures.recording = true;
  const builders = await startBuilders(cluster, `Place${cluster.nodes.length}B`, BUILDERS, PLACEMENTS_AT, BUILDER_TILES, figures);
  await Promise.all(builders.map((builder) => builder.heartbeat()));
  let placed = 0;
  let measuring = false;
  let going = true;
  const building = builders.map((builder) => builder.build(() => going, true, (change) => {
    if (measuring && change.set) placed++;
  }));
  await sleep(WALK_WARMUP_MS);
  measuring = true;
  await sleep(SECONDS * 1000);
  measuring = false;
  going = false;
  await Promise.all(building);
  for (const builder of builders) builder.stop();
  // Half of a builder's changes are placements, half removals.
  return { perS: placed / SECONDS, offeredPerS: (BUILDERS * 8) / 2, refusals: Object.fromEntries(figures.refusals) };
}

/** The blocks case on a cluster of two: see the module comment. */
async function runBlocks(cluster: TestCluster): Promise<void> {
  const figures = new LoadFigures(0);
  figures.recording = true;
  const [writerNode, otherNode] = cluster.nodes;
  const builders = await startBuilders(cluster, 'BlocksB', BLOCK_BUILDERS, BUILD_AT, BUILDER_TILES, figures, [writerNode!]);
  const regions = [...new Map(builders.flatMap((builder) => builder.regions()).map((region) => [`${region.rx}:${region.ry}`, region])).values()];
  const [same, cross] = await startListeners(cluster, [writerNode!, otherNode!], BUILD_AT, figures);
  await Promise.all([same!.follow(regions), cross!.follow(regions), ...builders.map((builder) => builder.heartbeat())]);
  const sent = new Map<string, BlockChangeSent>();
  await Promise.all(builders.map((builder: Builder) => builder.build(() => sent.size < CHANGES, true, (change) => sent.set(change.key, change))));
  const heardAll = () => [same!, cross!].every((listener) => listener.arrivals.length >= sent.size);
  await waitFor(heardAll, { timeout: 5000, interval: 250, message: 'every change heard on both nodes' }).catch(() => undefined);
  const [sameHeard, crossHeard] = [same!, cross!].map((listener) => matchArrivals(listener.arrivals, [...sent.values()])) as [Heard, Heard];
  const latencies = (heard: Heard) => [...sent.values()].flatMap((change) => {
    const at = heard.arrivedAt.get(change.key);
    return at === undefined ? [] : [at - change.sentAt];
  });
  const sameMs = latencies(sameHeard);
  const crossMs = latencies(crossHeard);
  printRow({
    bench: 'cluster', case: 'blocks', same_node_p99_ms: percentile(sameMs, 99), cross_node_p99_ms: percentile(crossMs, 99),
    changes: sent.size, out_of_order: outOfOrder(sameHeard.byTopic, crossHeard.byTopic),
    missing_same_node: sent.size - sameMs.length, missing_cross_node: sent.size - crossMs.length, regions: regions.length, builders: BLOCK_BUILDERS,
    refusals: Object.fromEntries(figures.refusals),
  });
  for (const builder of builders) builder.stop();
  for (const listener of [same!, cross!]) listener.close();
}

/** Tiles of `acked` placements that the database does not hold. */
async function placementsLost(cluster: TestCluster, acked: BlockChangeSent[]): Promise<number> {
  const client = new pg.Client({ connectionString: cluster.databaseUrl });
  await client.connect();
  try {
    const tiles = acked.map((change) => change.key.split('#')[0]!.split(',').map(Number));
    const { rows } = await client.query<{ held: string }>(
      'select count(*) as held from public.game_blocks b join unnest($1::int[], $2::int[]) as t(x, y) on b.x = t.x and b.y = t.y',
      [tiles.map((tile) => tile[0]), tiles.map((tile) => tile[1])],
    );
    return acked.length - Number(rows[0]!.held);
  } finally {
    await client.end();
  }
}

/** The node_loss case on a cluster of two: see the module comment. Kills node 2. */
async function runNodeLoss(cluster: TestCluster): Promise<void> {
  const [survivor, lost] = cluster.nodes;
  const crowd = await startCrowd(cluster, 'screen', LOSS_PLAYERS, 'Loss');
  const figures = new LoadFigures(0);
  figures.recording = true;
  const builders = await startBuilders(cluster, 'LossB', LOSS_BUILDERS, LOSS_AT, BUILDER_TILES, figures, [lost!]);
  await Promise.all(builders.map((builder) => builder.heartbeat()));
  const acked: BlockChangeSent[] = [];
  let alive = true;
  const building = builders.map((builder) => builder.build(() => alive, false, (change) => acked.push(change)));
  for (const fleet of crowd.fleets) fleet.walk(1000);
  await sleep(WALK_WARMUP_MS);
  const stranded = crowd.fleets[1]!.bots;
  const killedAt = Date.now();
  await lost!.kill();
  alive = false;
  const backAfter = await inBatches(stranded, 16, async (bot) => {
    const identity = await signInBot(survivor!, crowd.keys[bot.plan.index]!);
    const again = await crowd.fleets[0]!.add(identity, { ...bot.plan, start: { x: Math.round(bot.pose.x), y: Math.round(bot.pose.y) } });
    await waitFor(() => again.ready(), { timeout: 30_000, interval: 50, message: `${bot.plan.name} back` });
    return (Date.now() - killedAt) / 1000;
  });
  await Promise.all(building);
  for (const builder of builders) builder.stop();
  printRow({
    bench: 'cluster', case: 'node_loss', players: stranded.length, back_p50_s: round(percentile(backAfter, 50), 2), back_max_s: round(Math.max(...backAfter), 2),
    acked_lost: await placementsLost(cluster, acked), acked_placements: acked.length, crowd: LOSS_PLAYERS, builder_refusals: Object.fromEntries(figures.refusals),
  });
  await crowd.stop();
}

/** Runs `work` on a new cluster of `nodes` nodes, closed after. */
async function withCluster<T>(nodes: number, work: (cluster: TestCluster) => Promise<T>): Promise<T> {
  const cluster = await startCluster(nodes);
  try {
    return await work(cluster);
  } finally {
    await cluster.close();
  }
}

const crowds = CASES.includes('cpu') || CASES.includes('poses');
printHeader('cluster', { warmups: 0, runs: CROWD_RUNS, cases: CASES, players: PLAYERS, seconds: SECONDS, changes: CHANGES, builders: BUILDERS });

/** Each shape's crowd on one cluster of `nodes` nodes, in SHAPES order. */
function crowdsOn(nodes: number): Promise<CrowdRun[]> {
  return withCluster(nodes, async (cluster) => {
    const runs: CrowdRun[] = [];
    for (const shape of SHAPES) runs.push(await runCrowd(cluster, shape, `${nodes === 1 ? 'One' : 'Two'}${shape === 'screen' ? '' : 'Spread'}`));
    return runs;
  });
}

/** Prints the cpu and poses lines of CROWD_RUNS runs: medians, and each run's figures. */
function printCrowds(one: CrowdRun[][], two: CrowdRun[][]): void {
  for (const [i, shape] of SHAPES.entries()) {
    const single = one.map((runs) => runs[i]!);
    const split = two.map((runs) => runs[i]!);
    const ratios = split.map((run, r) => run.msPerPlayerS / single[r]!.msPerPlayerS);
    if (CASES.includes('cpu')) {
      printRow({
        bench: 'cluster', case: 'cpu', shape, players: PLAYERS,
        one_node_ms_per_player_s: round(median(single.map((run) => run.msPerPlayerS)), 3), two_nodes_ms_per_player_s: round(median(split.map((run) => run.msPerPlayerS)), 3),
        ratio: round(median(ratios), 2), ratios: ratios.map((ratio) => round(ratio, 2)), two_nodes_each: split.map((run) => run.perNode),
        ready: [single.map((run) => run.ready), split.map((run) => run.ready)],
        postgres_ms_per_player_s: [round(median(single.map((run) => run.postgresMsPerPlayerS)), 3), round(median(split.map((run) => run.postgresMsPerPlayerS)), 3)],
        poses_heard_per_player_s: [round(median(single.map((run) => run.heardPerPlayerS)), 1), round(median(split.map((run) => run.heardPerPlayerS)), 1)],
        bytes_per_player_s: [Math.round(median(single.map((run) => run.bytesPerPlayerS))), Math.round(median(split.map((run) => run.bytesPerPlayerS)))],
        seconds: SECONDS, runs: CROWD_RUNS,
      });
    }
    if (shape === 'screen' && CASES.includes('poses')) {
      const medianOf = (figure: (run: CrowdRun) => number) => round(median(split.map(figure)), 1);
      printRow({
        bench: 'cluster', case: 'poses', same_node_p99_ms: medianOf((run) => run.sameNodeP99), cross_node_p99_ms: medianOf((run) => run.crossNodeP99),
        cross_minus_same_ms: split.map((run) => round(run.crossNodeP99 - run.sameNodeP99, 1)),
        bus_p50_ms: medianOf((run) => run.busP50), bus_p99_ms: medianOf((run) => run.busP99), players: PLAYERS, runs: CROWD_RUNS,
      });
    }
  }
}

if (crowds) {
  // One node and two in turn, the first in turn swapped each run: a figure's median is not
  // taken over clusters that all met the machine in the same state.
  const one: CrowdRun[][] = [];
  const two: CrowdRun[][] = [];
  for (let run = 0; run < CROWD_RUNS; run++) {
    if (run % 2 === 0) {
      one.push(await crowdsOn(1));
      two.push(await crowdsOn(2));
    } else {
      two.push(await crowdsOn(2));
      one.push(await crowdsOn(1));
    }
  }
  printCrowds(one, two);
}
const onePlacements = CASES.includes('placements') ? await withCluster(1, runPlacements) : null;
if (CASES.some((c) => ['blocks', 'placements', 'node_loss'].includes(c))) {
  await withCluster(2, async (cluster) => {
    if (CASES.includes('blocks')) await runBlocks(cluster);
    if (onePlacements) {
      const two = await runPlacements(cluster);
      printRow({ bench: 'cluster', case: 'placements', one_node_per_s: round(onePlacements.perS, 1), two_nodes_per_s: round(two.perS, 1), offered_per_s: two.offeredPerS, builders: BUILDERS,
        refusals: [onePlacements.refusals, two.refusals] });
    }
    if (CASES.includes('node_loss')) await runNodeLoss(cluster);
  });
}
process.exit(0);
