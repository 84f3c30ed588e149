/** DOM listeners that hand back their own removal, so each input module returns one function that undoes it. */

/** Removes what was added. */
export type Unlisten = () => void;

/** Adds `handler` for events `type` on `target` (in the capture phase when `capture`); returns its removal. */
export function listen<E extends Event>(target: EventTarget, type: string, handler: (ev: E) => void, capture = false): Unlisten {
  const listener = handler as EventListener;
  target.addEventListener(type, listener, capture);
  return () => target.removeEventListener(type, listener, capture);
}
