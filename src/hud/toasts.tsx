import { useAtomValue } from 'jotai';
import { dismissToast, toastsAtom } from '../state/toasts.js';

/** The toast stack, bottom centre above the hotbar. */
export function Toasts() {
  const toasts = useAtomValue(toastsAtom);
  return (
    <ol className="toasts" aria-live="polite">
      {toasts.map((toast) => (
        <li key={toast.id} className={`pixel-panel toast toast--${toast.variant}`} role="status" onClick={() => dismissToast(toast.id)}>
          <p className="toast-title">{toast.title}</p>
          <p className="toast-text">{toast.description}</p>
        </li>
      ))}
    </ol>
  );
}
