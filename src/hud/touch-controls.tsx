import { useAtomValue } from 'jotai';
import type { PointerEvent } from 'react';
import type { Modifiers } from '../game/keys.js';
import { gameHandleAtom, hudAtoms } from '../state/hud-atoms.js';

/** Props of a button that holds a key while a finger is on it. */
interface HoldKeyProps {
  code: string;
  label: string;
  className: string;
  children: string;
  modifiers?: Modifiers;
  disabled?: boolean;
}

/** A button that presses `code` while touched, like holding the key (multi-touch: one pointer each). */
function HoldKey({ code, label, className, children, modifiers, disabled }: HoldKeyProps) {
  const handle = useAtomValue(gameHandleAtom);
  const press = (down: boolean) => (event: PointerEvent) => {
    event.preventDefault();
    handle?.key(code, down, modifiers);
  };
  return (
    <button
      type="button"
      className={`pixel-button touch-key ${className}`}
      aria-label={label}
      disabled={disabled}
      onPointerDown={press(true)}
      onPointerUp={press(false)}
      onPointerCancel={press(false)}
      onPointerLeave={press(false)}
      onContextMenu={(event) => event.preventDefault()}
    >
      {children}
    </button>
  );
}

/** The on-screen D-pad under the left thumb: it holds the arrow keys. */
function DPad() {
  return (
    <div className="dpad" role="group" aria-label="Movement">
      <HoldKey code="ArrowUp" label="Move up" className="dpad-up">▲</HoldKey>
      <HoldKey code="ArrowLeft" label="Move left" className="dpad-left">◀</HoldKey>
      <HoldKey code="ArrowRight" label="Move right" className="dpad-right">▶</HoldKey>
      <HoldKey code="ArrowDown" label="Move down" className="dpad-down">▼</HoldKey>
    </div>
  );
}

const CTRL: Modifiers = Object.freeze({ ctrl: true, shift: false });
const CTRL_SHIFT: Modifiers = Object.freeze({ ctrl: true, shift: true });

/** Attack (Space), undo (Ctrl+Z) and redo (Ctrl+Shift+Z) under the right thumb. */
function ActionButtons() {
  const undoable = useAtomValue(hudAtoms.undoable);
  const redoable = useAtomValue(hudAtoms.redoable);
  return (
    <div className="touch-actions" role="group" aria-label="Actions">
      <HoldKey code="KeyZ" modifiers={CTRL} label="Undo" className="touch-undo" disabled={undoable === 0}>↶</HoldKey>
      <HoldKey code="KeyZ" modifiers={CTRL_SHIFT} label="Redo" className="touch-redo" disabled={redoable === 0}>↷</HoldKey>
      <HoldKey code="Space" label="Attack" className="touch-attack">⚔</HoldKey>
    </div>
  );
}

/** The touch layout's controls: the D-pad lower left, attack, undo and redo lower right. Tapping the view places, a long press removes. */
export function TouchControls() {
  return (
    <>
      <DPad />
      <ActionButtons />
    </>
  );
}
