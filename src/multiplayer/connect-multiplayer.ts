/**
 * Joins a mounted game to the shared world: starts the network session for the signed-in
 * wallet (./game-session.ts), registers the chat and voice services (./talk-services.ts), the
 * moderation and the land claims the panels call, follows the minimap (./minimap-follow.ts), and
 * leaves cleanly when the game screen closes or the page goes away.
 */
import { getClientConfig, getSupabase } from '../../net/client.js';
import { createModeration } from '../../net/moderation.js';
import type { MountedGame } from '../game/mount.js';
import { mutedAtom, nameMenuAtom, registerModeration } from '../state/moderation-atoms.js';
import { connectionAtom, landClaimsAtom } from '../state/social-atoms.js';
import { store } from '../state/store.js';
import { startGameSession, type Identity } from './game-session.js';
import { followMinimap } from './minimap-follow.js';
import { registerTalkServices } from './talk-services.js';

/** Connects `game` to the backend; resolves to a function that leaves the world again. */
export async function connectMultiplayer(game: MountedGame, identity: Identity): Promise<() => Promise<void>> {
  const [db, config] = await Promise.all([getSupabase(), getClientConfig()]);
  const session = await startGameSession(game, identity, db, config);
  const unregisterTalk = registerTalkServices(session);
  const unregisterModeration = registerModeration(
    await createModeration(db, { playerId: identity.playerId, onMutes: (muted) => store.set(mutedAtom, muted) }),
  );
  const stopMinimap = followMinimap(game.world, session);
  store.set(landClaimsAtom, session.claims);
  const onPageHide = () => session.leaveOnPageClose();
  window.addEventListener('pagehide', onPageHide);

  return async () => {
    window.removeEventListener('pagehide', onPageHide);
    stopMinimap();
    unregisterTalk();
    unregisterModeration();
    store.set(nameMenuAtom, null);
    store.set(landClaimsAtom, null);
    store.set(connectionAtom, 'connecting');
    await session.close();
  };
}
