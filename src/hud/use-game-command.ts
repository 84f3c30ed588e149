import { useAtomValue } from 'jotai';
import { useCallback } from 'react';
import type { GameCommand } from '../../components/hud.js';
import { gameHandleAtom } from '../state/hud-atoms.js';

/** A function that queues a command for the engine; does nothing while no game runs. */
export function useGameCommand(): (command: GameCommand) => void {
  const handle = useAtomValue(gameHandleAtom);
  return useCallback((command: GameCommand) => handle?.push(command), [handle]);
}
