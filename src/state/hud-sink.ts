import type { HudFields, HudSink } from '../../components/hud.js';
import { hudAtoms } from './hud-atoms.js';
import type { Store } from './store.js';
import { showToast } from './toasts.js';

/**
 * The HudSink the engine publishes to: each field lands in its own atom, written only when the
 * value differs from the current one, so an unchanged value never wakes React.
 */
export function createHudSink(store: Store): HudSink {
  return {
    set<K extends keyof HudFields>(key: K, value: HudFields[K]): void {
      const target = hudAtoms[key];
      if (!Object.is(store.get(target), value)) store.set(target, value);
    },
    toast: showToast,
  };
}
