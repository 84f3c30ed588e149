import { enteringAtom } from './entering-atoms.js';
import { hudAtoms } from './hud-atoms.js';
import { chatMessagesAtom, connectionAtom, minimapPlayersAtom, onlineCountAtom } from './social-atoms.js';
import { store } from './store.js';
import { showToast } from './toasts.js';

/** What `window.__tesseraState` offers to the browser tests and to a developer's console. */
export const debugState = { store, hudAtoms, chatMessagesAtom, onlineCountAtom, connectionAtom, minimapPlayersAtom, enteringAtom, showToast };

declare global {
  interface Window {
    __tesseraState?: typeof debugState;
  }
}

/** Puts the store and the atoms the network and engine write on `window.__tesseraState`. */
export function exposeState(): void {
  window.__tesseraState = debugState;
}
