/**
 * Mounts the engine on the game screen's canvas: creates the world and the local player, and
 * composes the parts that run it in the page — the frame loop (./frame-loop.ts), the canvas
 * size (./canvas-view.ts), sound (./sound.ts), keys (./keyboard.ts), mouse (./mouse.ts), touch
 * (./touch.ts), picking tiles and players (./pick-tile.ts, ./player-tap.ts) and the debug handles
 * (./debug-handle.ts). `dispose()` undoes all of it.
 */
import type { GameCommand } from '../../components/hud.js';
import type { NetQueues } from '../../components/network.js';
import { inventoryView } from '../../components/inventory.js';
import { spawnLocalPlayer } from '../../components/players.js';
import { WORLD_SEED } from '../../components/terrain.js';
import { createGameWorld, type GameWorld } from '../../components/world.js';
import { createCanvasView, fitCanvasToBox } from './canvas-view.js';
import { installDebugHandles } from './debug-handle.js';
import { startFrameLoop } from './frame-loop.js';
import { createFrameProbe, createProbeHandle } from './frame-probe.js';
import { createInspector } from './inspect.js';
import { listenToKeys } from './keyboard.js';
import { applyKey } from './keys.js';
import type { Unlisten } from './listen.js';
import { listenToMouse } from './mouse.js';
import { createTilePicker } from './pick-tile.js';
import { createPlayerTap } from './player-tap.js';
import { unlockSoundOnTap } from './sound.js';
import { listenToTouch } from './touch.js';
import type { GameHandle, MountOptions } from './types.js';

/** A running game, with the net queues and the world for `net/`. */
export interface MountedGame extends GameHandle {
  queues: NetQueues;
  world: GameWorld;
  /** The size of the drawn view in pixels (the canvas's). */
  viewSize(): { width: number; height: number };
}

/** Starts the game on `options.canvas`. */
export function mountGame(options: MountOptions): MountedGame {
  const { canvas, sounds } = options;
  const world = createGameWorld({ seed: options.seed ?? WORLD_SEED, hud: options.hud });
  spawnLocalPlayer(world, { id: options.playerId, name: options.name, appearance: options.appearance });
  const view = createCanvasView(canvas);
  const probe = createFrameProbe();
  const loop = startFrameLoop(world, view, probe, sounds);
  const inspector = createInspector(world, view.names);
  const pick = createTilePicker(canvas, world, view, () => loop.alpha);
  const tapPlayer = createPlayerTap(inspector, options.onPlayerTap);
  const undo: Unlisten[] = [
    loop.stop,
    ...(options.fit ? [fitCanvasToBox(canvas, view)] : []),
    listenToTouch(canvas, world, pick, tapPlayer),
    unlockSoundOnTap(sounds),
    listenToKeys(world, () => sounds?.unlock()),
    listenToMouse(canvas, world, pick, tapPlayer),
    installDebugHandles(inspector, createProbeHandle(world, probe)),
  ];
  return {
    queues: world.queues,
    world,
    viewSize: () => ({ width: view.width, height: view.height }),
    push(command: GameCommand) {
      world.commands.push(command);
    },
    key(code, down, modifiers) {
      applyKey(world.input, code, down, modifiers);
    },
    inventory: () => inventoryView(world.inventory),
    claims: () => world.claims.list,
    dispose() {
      for (const stop of undo) stop();
    },
  };
}
