import { useEffect, useRef, useState, type ReactNode } from 'react';

/** A tooltip opens after the pointer rests this long on its trigger (docs/game-rules.md §9). */
export const TOOLTIP_OPEN_DELAY_MS = 700;
/** Moving to another trigger within this long after a tooltip closed opens at once. */
export const TOOLTIP_SKIP_DELAY_MS = 300;

let lastClosedAt = -Infinity;

/** Props of {@link Tooltip}. */
export interface TooltipProps {
  label: string;
  children: ReactNode;
  /** Which side of the trigger the tooltip appears on. */
  side?: 'top' | 'bottom' | 'left';
}

/** Wraps a trigger and shows `label` beside it while the pointer rests on it. */
export function Tooltip({ label, children, side = 'top' }: TooltipProps) {
  const [open, setOpen] = useState(false);
  const timer = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);
  useEffect(() => () => clearTimeout(timer.current), []);
  const show = () => {
    const skip = performance.now() - lastClosedAt < TOOLTIP_SKIP_DELAY_MS;
    timer.current = setTimeout(() => setOpen(true), skip ? 0 : TOOLTIP_OPEN_DELAY_MS);
  };
  const hide = () => {
    clearTimeout(timer.current);
    if (open) lastClosedAt = performance.now();
    setOpen(false);
  };
  return (
    <span className="tooltip-anchor" onPointerEnter={show} onPointerLeave={hide} onPointerDown={hide}>
      {children}
      {open ? (
        <span role="tooltip" className={`tooltip tooltip--${side}`}>
          {label}
        </span>
      ) : null}
    </span>
  );
}
