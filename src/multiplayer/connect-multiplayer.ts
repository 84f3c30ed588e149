/**
 * Joins a mounted game to the shared world: starts the network session for the signed-in
 * wallet, feeds its data into the HUD atoms, registers the chat and voice services and the land claims
 * the panels call, and leaves cleanly when the game screen closes or the page goes away.
 */
import { countPlayersNear } from '../../components/proximity.js';
import { readLocalPlayer } from '../../components/players.js';
import { blockAt } from '../../components/tiles.js';
import { getClientConfig, getSupabase } from '../../net/client.js';
import { MINIMAP_REFRESH_MS } from '../../net/constants.js';
import { createModeration } from '../../net/moderation.js';
import { startSession, type Session } from '../../net/session.js';
import { playClip } from '../audio/player.js';
import { startRecording, type Recording } from '../audio/recorder.js';
import { createInspector } from '../game/inspect.js';
import type { MountedGame } from '../game/mount.js';
import { mutedAtom, nameMenuAtom, registerModeration } from '../state/moderation-atoms.js';
import { registerGameServices } from '../state/services.js';
import {
  audioEnabledAtom,
  chatMessagesAtom,
  connectedAtom,
  landClaimsAtom,
  minimapPlayersAtom,
  onlineCountAtom,
  voiceOnlineAtom,
  type MinimapPlayer,
} from '../state/social-atoms.js';
import { enteringAtom } from '../state/entering-atoms.js';
import { store } from '../state/store.js';
import { minimapOpenAtom } from '../state/ui-atoms.js';
import { showToast } from '../state/toasts.js';

/** Who plays: the wallet address and a way to read the current name. */
export interface Identity {
  playerId: string;
  playerName(): string;
}

/** Connects `game` to the backend; resolves to a function that leaves the world again. */
export async function connectMultiplayer(game: MountedGame, identity: Identity): Promise<() => Promise<void>> {
  const [db, config] = await Promise.all([getSupabase(), getClientConfig()]);
  const { world } = game;
  const local = () => {
    const player = readLocalPlayer(world);
    if (!player) throw new Error('the local player is not spawned');
    return player;
  };

  const session: Session = await startSession({
    db,
    url: config.supabaseUrl,
    anonKey: config.supabaseAnonKey,
    playerId: identity.playerId,
    playerName: identity.playerName,
    queues: game.queues,
    readLocal: () => ({ ...local(), id: identity.playerId, name: identity.playerName() }),
    world: { hasBlock: (x, y) => blockAt(world.tiles, x, y) !== null },
    view: game.viewSize,
    inCombat: () => world.local !== 0 && !world.combat.safe[world.local] && countPlayersNear(world, world.local) > 0,
    listener: () => {
      const { x, y } = local();
      return { id: identity.playerId, x, y, audioEnabled: store.get(audioEnabledAtom), voiceOnline: store.get(voiceOnlineAtom) };
    },
    playVoice: (audioData, volume) => {
      void playClip(audioData, volume).then((played) => {
        if (played) world.voiceHeard++;
      });
    },
    notice: (title, description) => showToast({ title, description, variant: 'destructive' }),
    onChat: (messages) => store.set(chatMessagesAtom, [...messages]),
    onOnlineCount: (count) => store.set(onlineCountAtom, count),
    onConnected: (connected) => store.set(connectedAtom, connected),
    onProgress: (phase, loaded, total) => store.set(enteringAtom, { phase, loaded, total }),
  });

  let recording: Promise<Recording> | null = null;
  const unregister = registerGameServices({
    async sendChat(text) {
      const refusal = await session.sendChat(text);
      if (refusal) showToast({ title: 'Message Not Sent', description: refusal, variant: 'destructive' });
    },
    async startTalking() {
      recording = startRecording();
      try {
        await recording;
      } catch (error) {
        recording = null;
        throw error;
      }
    },
    async stopTalking() {
      const pending = recording;
      recording = null;
      if (!pending) return;
      const clip = await (await pending).stop();
      if (clip && !(await session.sendVoice(clip))) throw new Error('the server refused the voice clip');
    },
  });

  const unregisterModeration = registerModeration(
    await createModeration(db, { playerId: identity.playerId, onMutes: (muted) => store.set(mutedAtom, muted) }),
  );

  const inspector = createInspector(world);
  /** Players with live presence are placed from the engine; the rest from their latest blocks. */
  const refreshMinimap = async () => {
    const fromBlocks = await session.minimapFallback();
    const now = Date.now();
    const present: MinimapPlayer[] = inspector.remotePlayers().map(({ id, name, x, y }) => ({ id, name, x, y, seenAt: now }));
    const presentIds = new Set(present.map((p) => p.id));
    store.set(minimapPlayersAtom, [...present, ...fromBlocks.filter((p) => !presentIds.has(p.id))]);
  };
  // docs/game-rules.md §7: the minimap query is polled every 10 s while the minimap is open.
  let minimapTimer: ReturnType<typeof setInterval> | undefined;
  const followMinimap = () => {
    clearInterval(minimapTimer);
    minimapTimer = undefined;
    if (!store.get(minimapOpenAtom)) return;
    void refreshMinimap();
    minimapTimer = setInterval(() => void refreshMinimap(), MINIMAP_REFRESH_MS);
  };
  followMinimap();
  const stopFollowingMinimap = store.sub(minimapOpenAtom, followMinimap);

  store.set(landClaimsAtom, session.claims);

  const onPageHide = () => session.leaveOnPageClose();
  window.addEventListener('pagehide', onPageHide);

  return async () => {
    window.removeEventListener('pagehide', onPageHide);
    stopFollowingMinimap();
    clearInterval(minimapTimer);
    unregister();
    unregisterModeration();
    store.set(nameMenuAtom, null);
    store.set(landClaimsAtom, null);
    store.set(connectedAtom, false);
    await session.close();
  };
}
