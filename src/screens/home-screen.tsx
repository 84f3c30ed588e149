import { atom, useAtomValue } from 'jotai';
import { lazy, Suspense } from 'react';
import { enteredAtom } from '../state/ui-atoms.js';
import { publicKeyAtom, usernameAtom } from '../state/wallet-atoms.js';
import { LandingScreen } from './landing/landing-screen.js';

const inWorldAtom = atom((get) => get(publicKeyAtom) !== null && !!get(usernameAtom) && get(enteredAtom));

/** The game screen's code (engine, HUD, multiplayer) is fetched when a player enters the world. */
const GameScreen = lazy(() => import('./game/game-screen.js').then((module) => ({ default: module.GameScreen })));

/** Route `/`: the landing screen until the player is connected, named and entered; then the game. */
export function HomeScreen() {
  return useAtomValue(inWorldAtom) ? (
    <Suspense fallback={null}>
      <GameScreen />
    </Suspense>
  ) : (
    <LandingScreen />
  );
}
