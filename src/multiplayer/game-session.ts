/**
 * The network session of a mounted game: what it reads from the engine (the local player, its
 * tiles, its view, whether it fights) and where it reports to (the HUD atoms, toasts, voice).
 */
import { countPlayersNear } from '../../components/proximity.js';
import { readLocalPlayer } from '../../components/players.js';
import { blockAt } from '../../components/tiles.js';
import type { GameWorld } from '../../components/world.js';
import type { ClientConfig } from '../../net/client.js';
import { startSession, type Session, type SessionOptions } from '../../net/session.js';
import { playClip } from '../audio/player.js';
import type { MountedGame } from '../game/mount.js';
import { enteringAtom } from '../state/entering-atoms.js';
import { audioEnabledAtom, chatMessagesAtom, connectionAtom, onlineCountAtom, voiceOnlineAtom } from '../state/social-atoms.js';
import { store } from '../state/store.js';
import { showToast } from '../state/toasts.js';

/** Who plays: the wallet address and a way to read the current name. */
export interface Identity {
  playerId: string;
  playerName(): string;
}

/** The local player of `world`; it is spawned for as long as the game is mounted. */
function localPlayerOf(world: GameWorld) {
  const player = readLocalPlayer(world);
  if (!player) throw new Error('the local player is not spawned');
  return player;
}

/** Whether the local player stands in the PvP zone with another player within combat range. */
function inCombat(world: GameWorld): boolean {
  return world.local !== 0 && !world.combat.safe[world.local] && countPlayersNear(world, world.local) > 0;
}

/** Starts the network session for `game`, played by `identity`, on backend `db` at `config`. */
export function startGameSession(
  game: MountedGame,
  identity: Identity,
  db: SessionOptions['db'],
  config: ClientConfig,
): Promise<Session> {
  const { world } = game;
  const local = () => localPlayerOf(world);
  return startSession({
    db,
    url: config.supabaseUrl,
    anonKey: config.supabaseAnonKey,
    playerId: identity.playerId,
    playerName: identity.playerName,
    queues: game.queues,
    readLocal: () => ({ ...local(), id: identity.playerId, name: identity.playerName() }),
    world: { hasBlock: (x, y) => blockAt(world.tiles, x, y) !== null },
    view: game.viewSize,
    inCombat: () => inCombat(world),
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
    onConnection: (state) => store.set(connectionAtom, state),
    onProgress: (phase, loaded, total) => store.set(enteringAtom, { phase, loaded, total }),
  });
}
