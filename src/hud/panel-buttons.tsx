import { useAtom, useAtomValue, type PrimitiveAtom } from 'jotai';
import { chatOpenAtom, customiseOpenAtom, inventoryOpenAtom, landOpenAtom, minimapOpenAtom, touchLayoutAtom, voiceOpenAtom } from '../state/ui-atoms.js';
import { Tooltip } from './tooltip.js';

function PanelToggle({ label, hint, open }: { label: string; hint: string; open: PrimitiveAtom<boolean> }) {
  const [isOpen, setOpen] = useAtom(open);
  return (
    <Tooltip label={hint}>
      <button type="button" className={`pixel-button pixel-button--small ${isOpen ? 'is-active' : ''}`} aria-pressed={isOpen} onClick={() => setOpen(!isOpen)}>
        {label}
      </button>
    </Tooltip>
  );
}

/** Buttons for the four panels, for players who prefer the mouse to I, C, M and L; in the touch layout also chat and voice. */
export function PanelButtons() {
  const touch = useAtomValue(touchLayoutAtom);
  return (
    <nav className="panel-buttons" aria-label="Panels">
      <PanelToggle label="BAG" hint="Inventory (I)" open={inventoryOpenAtom} />
      <PanelToggle label="STYLE" hint="Customisation (C)" open={customiseOpenAtom} />
      <PanelToggle label="MAP" hint="Minimap (M)" open={minimapOpenAtom} />
      <PanelToggle label="LAND" hint="Land claims (L)" open={landOpenAtom} />
      {touch && <PanelToggle label="CHAT" hint="Chat" open={chatOpenAtom} />}
      {touch && <PanelToggle label="VOICE" hint="Voice chat" open={voiceOpenAtom} />}
    </nav>
  );
}
