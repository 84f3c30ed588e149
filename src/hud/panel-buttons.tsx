import { useAtom, type PrimitiveAtom } from 'jotai';
import { customiseOpenAtom, inventoryOpenAtom, minimapOpenAtom } from '../state/ui-atoms.js';
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

/** Buttons for the three panels, for players who prefer the mouse to I, C and M. */
export function PanelButtons() {
  return (
    <nav className="panel-buttons" aria-label="Panels">
      <PanelToggle label="BAG" hint="Inventory (I)" open={inventoryOpenAtom} />
      <PanelToggle label="STYLE" hint="Customisation (C)" open={customiseOpenAtom} />
      <PanelToggle label="MAP" hint="Minimap (M)" open={minimapOpenAtom} />
    </nav>
  );
}
