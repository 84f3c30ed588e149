import { useEffect } from 'react';
import { store } from '../state/store.js';
import { chatOpenAtom, customiseOpenAtom, inventoryOpenAtom, landOpenAtom, minimapOpenAtom, voiceOpenAtom } from '../state/ui-atoms.js';

const TOGGLES = { i: inventoryOpenAtom, c: customiseOpenAtom, m: minimapOpenAtom, l: landOpenAtom } as const;

/** True when `target` is a text field, where keys are typing rather than commands. */
export function isTypingTarget(target: EventTarget | null): boolean {
  return target instanceof HTMLElement && (target.isContentEditable || ['INPUT', 'TEXTAREA', 'SELECT'].includes(target.tagName));
}

/** I, C, M and L toggle their panels; Escape closes them all. Ignored while typing. */
export function usePanelKeys(): void {
  useEffect(() => {
    const onKeyDown = (event: KeyboardEvent) => {
      if (event.repeat || event.ctrlKey || event.metaKey || event.altKey || isTypingTarget(event.target)) return;
      if (event.key === 'Escape') {
        for (const open of [...Object.values(TOGGLES), chatOpenAtom, voiceOpenAtom]) store.set(open, false);
        return;
      }
      const open = TOGGLES[event.key.toLowerCase() as keyof typeof TOGGLES];
      if (open) store.set(open, !store.get(open));
    };
    window.addEventListener('keydown', onKeyDown);
    return () => window.removeEventListener('keydown', onKeyDown);
  }, []);
}
