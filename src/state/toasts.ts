/** The toast queue (docs/game-rules.md §8). Anything may show a toast; the HUD renders the queue. */
import { atom } from 'jotai';
import type { Toast } from '../../components/hud.js';
import { store } from './store.js';

/** A toast on screen, with an id for dismissal. */
export interface ShownToast extends Toast {
  id: number;
}

/** How long a toast stays on screen. */
export const TOAST_DURATION_MS = 4000;

/** Toasts currently on screen, oldest first. */
export const toastsAtom = atom<ShownToast[]>([]);

let nextId = 1;

/** Removes the toast with `id`. */
export function dismissToast(id: number): void {
  store.set(toastsAtom, (toasts) => toasts.filter((toast) => toast.id !== id));
}

/**
 * Shows `toast` and removes it after {@link TOAST_DURATION_MS}. A toast identical to one still
 * on screen is not shown twice, so a burst of the same refusal reads as one message.
 */
export function showToast(toast: Toast): void {
  const shown = store.get(toastsAtom);
  if (shown.some((t) => t.title === toast.title && t.description === toast.description && t.variant === toast.variant)) return;
  const id = nextId++;
  store.set(toastsAtom, (toasts) => [...toasts, { ...toast, id }]);
  setTimeout(() => dismissToast(id), TOAST_DURATION_MS);
}
