import { atom, useAtomValue } from 'jotai';
import { enteredAtom } from '../state/ui-atoms.js';
import { publicKeyAtom, usernameAtom } from '../state/wallet-atoms.js';
import { GameScreen } from './game/game-screen.js';
import { LandingScreen } from './landing/landing-screen.js';

const inWorldAtom = atom((get) => get(publicKeyAtom) !== null && !!get(usernameAtom) && get(enteredAtom));

/** Route `/`: the landing screen until the player is connected, named and entered; then the game. */
export function HomeScreen() {
  return useAtomValue(inWorldAtom) ? <GameScreen /> : <LandingScreen />;
}
