/** Keys pressed on the page move, swing, choose the hotbar and undo (./keys.ts), unless the player is typing in a field. */
import type { GameWorld } from '../../components/world.js';
import { applyKey } from './keys.js';
import { listen, type Unlisten } from './listen.js';

/** Whether the event comes from a text field or other editable element. */
function isTyping(target: EventTarget | null): boolean {
  return target instanceof HTMLElement && (target.isContentEditable || /^(INPUT|TEXTAREA|SELECT)$/.test(target.tagName));
}

/** Feeds the page's keys into `world.input`, calling `onPress` at every key press; returns the removal. */
export function listenToKeys(world: GameWorld, onPress: () => void): Unlisten {
  const onKey = (down: boolean) => (ev: KeyboardEvent) => {
    if (down) onPress();
    if (isTyping(ev.target)) return;
    if (applyKey(world.input, ev.code, down, { ctrl: ev.ctrlKey || ev.metaKey, shift: ev.shiftKey })) ev.preventDefault();
  };
  const stops = [
    listen(window, 'keydown', onKey(true)),
    listen(window, 'keyup', onKey(false)),
    // Keys released while the page had no focus never arrive: nothing stays held.
    listen(window, 'blur', () => {
      world.input.held = 0;
    }),
  ];
  return () => stops.forEach((stop) => stop());
}
