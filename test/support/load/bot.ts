/**
 * A protocol-level player: what one game client sends and joins, without the engine, `net/` or
 * supabase-js. It speaks Realtime over one raw websocket (socket.ts) and REST with plain `fetch`
 * (rest.ts, queries.ts), and does at the game's moments what net/session.ts does: the chat,
 * combat and voice channels, the presence heartbeat every 5 s and the presence channel of its
 * 3x3 regions, the private `region:rx:ry` pose channels of its interest centre, the block
 * regions and chunk reads (bot-blocks.ts), the claims, online-count and removed-block reads, and
 * poses decided as net/'s pose sender decides them (pose-sender.ts). It walks as the engine walks
 * a player (3 px a step, diagonals as fast; walker.ts), turning at random and at the edges of its
 * box, so the movement rule never refuses it. A refused join is made again (socket.ts). It has no
 * timer: the fleet calls {@link Bot.step} once per 16 ms step.
 */
import { STEP_MS, TILE_SIZE } from '../../../components/constants.js';
import { claimsArea, nearEdge, regionsRect } from '../../../net/claims/area.js';
import { CLAIMS_CHECK_MS, REGION_READ_GATHER_MS } from '../../../net/claims/claims.js';
import { ONLINE_REFRESH_MS, RESTORE_CHECK_MS, RESTORE_REFRESH_MS } from '../../../net/constants.js';
import { REGION_CHANNEL_CONFIG, type Pose } from '../../../net/poses/poses.js';
import { createInterest, type InterestArea } from '../../../net/interest/interest.js';
import type { Region } from '../../../protocol/geometry.js';
import { PRESENCE_HEARTBEAT_MS } from '../../../protocol/rules.js';
import { POSE_EVENT } from '../../../protocol/topics.js';
import { BotBlocks } from './bot-blocks.js';
import { PoseSender } from './pose-sender.js';
import type { LoadFigures } from './figures.js';
import * as q from './queries.js';
import { restRequest, type RestTarget } from './rest.js';
import type { BotIdentity } from './sign-in.js';
import { BotSocket, type BotChannel } from './socket.js';
import { stepWalker, type Box, type Walking } from './walker.js';
import type { ChangeBinding, ReceivedBroadcast } from './wire.js';

/** What the fleet shares with its bots. */
export interface BotWorld extends RestTarget {
  figures: LoadFigures;
  /** The bot index of a wallet, or -1. */
  indexOf(address: string): number;
  /** When each tile ('x,y') was asked to be placed (ms since the epoch). */
  placedAt: Map<string, number>;
  /** A free land tile near a pixel position, or null. */
  freeTileNear(x: number, y: number): { x: number; y: number } | null;
}

/** One bot's part in the scenario. */
export interface BotPlan {
  index: number;
  name: string;
  start: { x: number; y: number };
  box: Box;
  /** Places a block this often (ms), or never when 0. */
  placeEveryMs: number;
  /** Sends a chat line this often (ms), or never when 0. */
  chatEveryMs: number;
}

/** Whether a payload carries a pose's sender and clock. */
interface HeardPose {
  id?: unknown;
  t?: unknown;
}

/** One walking bot; see the module comment. */
export class Bot {
  readonly socket: BotSocket;
  /** The pose as the engine would hand it to net/poses/poses.ts. */
  readonly pose: Pose;
  private readonly walking: Walking = { x: 0, y: 0, facing: 1, dx: 1, dy: 0, nextTurn: 0 };
  /** When it starts walking (ms since the epoch; Infinity: standing). */
  walkFrom = Infinity;
  private wasMoving = false;
  private lastStopBeat = -Infinity;
  private readonly sender: PoseSender;
  private readonly blocks: BotBlocks;
  private steps = 0;
  private poseBase = 0;
  private inWorld = false;
  private started = false;
  /** Where the bot stands, kept once as net/interest/interest.ts keeps it for the client. */
  private readonly interest = createInterest();
  /** The area the pose channels follow (they start once the bot is in the world). */
  private poseArea: InterestArea | null = null;
  private readonly regions = new Map<string, BotChannel>();
  private presence: BotChannel | null = null;
  private presenceKeys: string[] = [];
  private generation = 0;
  private chat: BotChannel | null = null;
  private readonly others: BotChannel[] = [];
  private beating: Promise<void> | null = null;
  private beatQueued: Promise<void> | null = null;
  private nextBeat = 0;
  private nextOnline = 0;
  private nextRestoreCheck = 0;
  private lastRestoreRead = 0;
  private nextClaimsCheck = 0;
  private claimsArea: ReturnType<typeof claimsArea> | null = null;
  private claimsLoading = false;
  private readonly joinedRegions: Region[] = [];
  private regionReadAt = 0;
  private nextPlace = Infinity;
  private nextChat = Infinity;

  /** Where its REST requests go, from its own source address. */
  private readonly rest: RestTarget;
  /** The players around were read once its presence channel joined. */
  private playersRead = false;

  /** A bot of `world` following `plan`, connecting from `localAddress` (the system's choice when absent). */
  constructor(private readonly world: BotWorld, readonly identity: BotIdentity, readonly plan: BotPlan, localAddress?: string) {
    this.pose = { x: plan.start.x, y: plan.start.y, facing: 1, moving: false, isSwinging: false };
    this.sender = new PoseSender(identity.address);
    this.rest = { url: world.url, anonKey: world.anonKey, figures: world.figures, localAddress };
    this.socket = new BotSocket(world.url, world.anonKey, world.figures, {
      joined: (channel) => this.joined(channel),
      broadcast: (message) => this.hear(message),
      closed: () => undefined,
    }, localAddress);
    this.blocks = new BotBlocks({
      join: (topic) => this.socket.join(topic, { private: true }, [], identity.accessToken),
      leave: (channel) => this.socket.leave(channel),
      request: async (request) => (await this.send(request)).status,
      regionJoined: (region) => {
        this.joinedRegions.push(region);
        if (this.regionReadAt === 0) this.regionReadAt = Date.now() + REGION_READ_GATHER_MS;
      },
    });
    this.interest.onArea((area) => this.followPresence(area));
  }

  /** Opens the socket and enters the world as net/session.ts does (resolves once the socket is open). */
  async start(): Promise<void> {
    await this.socket.opened;
    const { address, accessToken } = this.identity;
    const now = Date.now();
    this.poseBase = Math.floor(now / STEP_MS) + 1;
    this.refreshOnline(now);
    void this.loadClaims();
    this.nextBeat = now + PRESENCE_HEARTBEAT_MS;
    this.chat = this.socket.join('game_chat_messages', {}, [{ event: 'INSERT', schema: 'public', table: 'game_chat_messages' }], accessToken);
    void this.send(q.statsRequest(address));
    this.others.push(
      this.chat,
      this.socket.join('game_combat_logs', {}, [{ event: 'INSERT', schema: 'public', table: 'game_combat_logs', filter: `victim_id=eq.${address}` }], accessToken),
      this.socket.join('game_voice_messages', {}, [{ event: 'INSERT', schema: 'public', table: 'game_voice_messages' }], accessToken),
    );
    this.checkRemovals(now);
    this.blocks.follow(this.pose.x, this.pose.y, now);
    this.interest.move(this.pose.x, this.pose.y);
    this.started = true;
    await this.heartbeat();
    this.inWorld = true;
    void this.loadPlayers();
    const { placeEveryMs, chatEveryMs, index } = this.plan;
    // Each on a beat of its own: players who never agreed on when to build or talk.
    if (placeEveryMs > 0) this.nextPlace = Date.now() + ((index * 7919) % placeEveryMs);
    if (chatEveryMs > 0) this.nextChat = Date.now() + ((index * 104_729) % chatEveryMs);
  }

  /** Whether every channel a player in the world holds is joined (its 9 pose regions included). */
  ready(): boolean {
    return this.channelsLacking().length === 0;
  }

  /** What the bot still lacks of {@link ready}, by part: its first heartbeat, its pose regions, each channel not joined yet. */
  private channelsLacking(): string[] {
    const channels = [...this.regions.values(), ...this.others, ...(this.presence ? [this.presence] : [])];
    return [
      ...(this.inWorld ? [] : ['first heartbeat']),
      ...(this.regions.size === 9 ? [] : ['pose regions']),
      ...channels.filter((channel) => !channel.joined).map((channel) => `join ${channel.topic.replace(/-?\d+/g, 'N')}`),
      ...(this.presence ? [] : ['presence channel']),
    ];
  }

  /**
   * Whether the bot is in the world with a complete view: every channel joined ({@link ready}),
   * every chunk of its view read, and the players around read.
   */
  complete(): boolean {
    return this.lacking().length === 0;
  }

  /** What the bot still lacks of a complete view ({@link complete}), by part: empty once complete. */
  lacking(): string[] {
    return [...this.channelsLacking(), ...(this.blocks.viewRead() ? [] : ['chunks of the view']), ...(this.playersRead ? [] : ['players around'])];
  }

  /** The pose topics held (without `realtime:`), the interest centre's first. */
  poseTopics(): string[] {
    return [...this.regions.keys()];
  }

  /** The block topics held. */
  blockTopics(): string[] {
    return this.blocks.topics();
  }

  /** One engine step at wall time `now` (ms since the epoch). */
  step(now: number): void {
    if (!this.started) return;
    this.steps++;
    const pose = this.pose;
    if (now >= this.walkFrom) this.walk(now);
    else pose.moving = false;
    this.blocks.follow(pose.x, pose.y, now);
    this.interest.move(pose.x, pose.y);
    if (this.inWorld) this.sendPose(now);
    if (this.wasMoving && !pose.moving && now - this.lastStopBeat >= 1000) {
      this.lastStopBeat = now;
      void this.heartbeat();
    }
    this.wasMoving = pose.moving;
    this.timers(now);
    this.socket.tick(now);
  }

  /** Leaves every channel, deletes the presence row and closes the socket. */
  async stop(): Promise<void> {
    this.started = false;
    this.blocks.close();
    for (const channel of [...this.regions.values(), ...this.others]) this.socket.leave(channel);
    if (this.presence) this.socket.leave(this.presence);
    this.regions.clear();
    await this.send(q.leaveRequest(this.identity.address));
    this.socket.close();
  }

  /** Moves one step as the engine moves a walking player (walker.ts). */
  private walk(now: number): void {
    const pose = this.pose;
    const walking = this.walking;
    walking.x = pose.x;
    walking.y = pose.y;
    stepWalker(walking, this.plan.box, now);
    pose.x = walking.x;
    pose.y = walking.y;
    pose.facing = walking.facing;
    pose.moving = true;
  }

  /** net/poses/poses.ts `update`: follows the interest centre's 3x3 channels and sends the pose that is due on the centre's. */
  private sendPose(now: number): void {
    const pose = this.pose;
    const area = this.interest.area()!;
    if (area !== this.poseArea) {
      this.poseArea = area;
      const wanted = new Set(area.topics);
      for (const [topic, channel] of this.regions) {
        if (!wanted.has(topic)) {
          this.regions.delete(topic);
          this.socket.leave(channel);
        }
      }
      for (const topic of wanted) if (!this.regions.has(topic)) this.regions.set(topic, this.socket.join(topic, REGION_CHANNEL_CONFIG.config, [], this.identity.accessToken));
    }
    const topic = area.topics[0]!;
    const payload = this.sender.due(pose.x, pose.y, pose.facing, pose.moving, pose.isSwinging, this.poseBase + this.steps - 1, topic, now);
    if (payload === null) return;
    const channel = this.regions.get(topic);
    // As net/poses/poses.ts: never sent on a channel not joined (it stays due until it is).
    if (!channel?.joined) return;
    this.socket.broadcast(channel, POSE_EVENT, payload);
    this.sender.sent();
    if (this.world.figures.recording) this.world.figures.posesSent++;
  }

  /** net/presence/presence.ts `follow`: on a new interest centre, the rows of its 3x3 regions followed, and (after the first) a heartbeat and a load. */
  private followPresence(area: InterestArea): void {
    this.presenceKeys = area.keys;
    const filter = `region=in.(${this.presenceKeys.join(',')})`;
    const table = { schema: 'public', table: 'game_players' } as const;
    const bindings: ChangeBinding[] = [{ event: 'INSERT', ...table, filter }, { event: 'UPDATE', ...table, filter }, { event: 'DELETE', ...table }];
    const old = this.presence;
    this.presence = this.socket.join(`game_players:${++this.generation}`, {}, bindings, this.identity.accessToken);
    if (old) this.socket.leave(old);
    if (!area.first) void this.heartbeat().then(() => this.loadPlayers());
  }

  /** The timers net/ runs: heartbeat, online count, removed blocks, claims, and the scenario's building and chat. */
  private timers(now: number): void {
    if (now >= this.nextBeat) {
      this.nextBeat += PRESENCE_HEARTBEAT_MS;
      if (this.nextBeat < now) this.nextBeat += Math.ceil((now - this.nextBeat) / PRESENCE_HEARTBEAT_MS) * PRESENCE_HEARTBEAT_MS;
      void this.heartbeat();
    }
    if (now >= this.nextOnline) this.refreshOnline(now);
    if (now >= this.nextRestoreCheck) this.checkRemovals(now);
    if (now >= this.nextClaimsCheck) {
      this.nextClaimsCheck = now + CLAIMS_CHECK_MS;
      if (this.claimsArea && nearEdge(this.claimsArea, this.tile())) void this.loadClaims();
    }
    if (this.regionReadAt !== 0 && now >= this.regionReadAt) {
      this.regionReadAt = 0;
      const rect = regionsRect(this.joinedRegions.splice(0));
      void this.send(q.claimsInRequest(rect, 1000));
      void this.send(q.trustsRequest(this.identity.address));
    }
    if (now >= this.nextPlace) {
      this.nextPlace += this.plan.placeEveryMs;
      this.place();
    }
    if (now >= this.nextChat) {
      this.nextChat += this.plan.chatEveryMs;
      void this.send(q.chatRequest(this.identity.address, this.plan.name, `hello from ${this.plan.name}`)).then(({ status }) => {
        if (status === 201 && this.world.figures.recording) this.world.figures.chats++;
      });
    }
  }

  private tile(): { x: number; y: number } {
    return { x: Math.floor(this.pose.x / TILE_SIZE), y: Math.floor(this.pose.y / TILE_SIZE) };
  }

  /** net/presence/heartbeat.ts: one upsert at a time, at most one waiting. */
  private heartbeat(): Promise<void> {
    if (!this.beating) {
      const { x, y } = this.pose;
      this.beating = this.send(q.heartbeatRequest(this.identity.address, this.plan.name, x, y, Date.now())).then(() => {
        this.beating = null;
      });
      return this.beating;
    }
    const next = () => {
      this.beatQueued = null;
      return this.heartbeat();
    };
    this.beatQueued ??= this.beating.then(next, next);
    return this.beatQueued;
  }

  private async loadPlayers(): Promise<void> {
    if (this.presenceKeys.length === 0) return;
    const { status } = await this.send(q.playersRequest(this.identity.address, this.presenceKeys, Date.now()));
    if (status === 200 && this.presence?.joined) this.playersRead = true;
  }

  private refreshOnline(now: number): void {
    this.nextOnline = now + ONLINE_REFRESH_MS;
    for (const request of q.onlineRequests(now)) void this.send(request);
  }

  private checkRemovals(now: number): void {
    this.nextRestoreCheck = now + RESTORE_CHECK_MS;
    if (this.lastRestoreRead !== 0 && now - this.lastRestoreRead < RESTORE_REFRESH_MS) return;
    this.lastRestoreRead = now;
    void this.send(q.removalsRequest(this.identity.address, now));
  }

  /** net/claims/refresh.ts `load`: the area around the player, its own claims and its trusts. */
  private async loadClaims(): Promise<void> {
    if (this.claimsLoading) return;
    this.claimsLoading = true;
    const area = claimsArea(this.tile());
    const { address } = this.identity;
    await Promise.all([this.send(q.claimsInRequest(area)), this.send(q.ownClaimsRequest(address)), this.send(q.trustsRequest(address))]);
    this.claimsArea = area;
    this.claimsLoading = false;
  }

  private place(): void {
    const tile = this.world.freeTileNear(this.pose.x, this.pose.y);
    if (!tile) return;
    const figures = this.world.figures;
    if (figures.recording) figures.placements++;
    this.world.placedAt.set(`${tile.x},${tile.y}`, Date.now());
    void this.send(q.placeRequest(this.identity.address, this.plan.name, tile.x, tile.y, 'stone')).then(({ status }) => {
      if (status >= 400) void this.send(q.tileRequest(tile.x, tile.y));
      else if (figures.recording) figures.placed.add(`${tile.x},${tile.y}`);
    });
  }

  private send(request: q.GameRequest) {
    return restRequest(this.rest, this.identity.accessToken, request.table, request.query, request.call);
  }

  private joined(channel: BotChannel): void {
    const now = Date.now();
    if (this.blocks.joined(channel, now)) return;
    if (channel === this.presence) void this.loadPlayers();
    else if (channel === this.chat) void this.send(q.chatHistoryRequest());
  }

  /** A broadcast heard: poses (alone or in batches) and block changes are timed. */
  private hear(message: ReceivedBroadcast): void {
    const figures = this.world.figures;
    if (!figures.recording) return;
    if (message.event === 'batch') {
      const events = (message.payload as { events?: Array<{ event?: unknown; payload?: HeardPose }> }).events;
      if (Array.isArray(events)) for (const event of events) if (event.event === POSE_EVENT && event.payload) this.hearPose(event.payload);
    } else if (message.event === POSE_EVENT) this.hearPose(message.payload as HeardPose);
    else if (message.event === 'blocks') this.hearBlocks(message.payload as { s?: unknown });
  }

  private hearPose(payload: HeardPose): void {
    const figures = this.world.figures;
    const sender = typeof payload.id === 'string' ? this.world.indexOf(payload.id) : -1;
    if (typeof payload.t === 'number') (sender >= 0 ? figures.poseLatency : figures.otherFleetPoseLatency).add(Date.now() - payload.t);
    if (sender >= 0) figures.heard[sender]!++;
  }

  private hearBlocks(payload: { s?: unknown }): void {
    if (!Array.isArray(payload.s)) return;
    const now = Date.now();
    for (const entry of payload.s as unknown[][]) {
      const tile = `${entry[0] as number},${entry[1] as number}`;
      const at = this.world.placedAt.get(tile);
      if (at === undefined) continue;
      this.world.figures.blockLatency.add(now - at);
      this.world.figures.heardTiles.add(tile);
    }
  }
}
