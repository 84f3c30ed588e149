import { useAtomValue } from 'jotai';
import type { InventoryView, ItemView } from '../../components/hud.js';
import { hudAtoms, inventoryAtom } from '../state/hud-atoms.js';
import { ItemSlot } from './item-slot.js';
import { useGameCommand } from './use-game-command.js';

/** The item shown in hotbar slot `index`, or null. */
export function hotbarItem(inventory: InventoryView | null, index: number): ItemView | null {
  const slot = inventory?.hotbar[index];
  return slot === null || slot === undefined ? null : (inventory?.items[slot] ?? null);
}

function SelectedToolName({ inventory }: { inventory: InventoryView | null }) {
  const selected = useAtomValue(hudAtoms.selectedSlot);
  const item = hotbarItem(inventory, selected);
  return <p className="tool-name" data-testid="tool-name">{item ? item.name : 'Empty hand'}</p>;
}

/** Bottom centre: the 8 hotbar slots; a click selects one. */
export function Hotbar() {
  const inventory = useAtomValue(inventoryAtom);
  const selected = useAtomValue(hudAtoms.selectedSlot);
  const push = useGameCommand();
  return (
    <div className="hotbar-wrap">
      <SelectedToolName inventory={inventory} />
      <div className="pixel-panel hotbar" data-testid="hotbar">
        {Array.from({ length: 8 }, (_, index) => (
          <ItemSlot
            key={index}
            item={hotbarItem(inventory, index)}
            selected={index === selected}
            keyHint={String(index + 1)}
            label={`Hotbar slot ${index + 1}`}
            onClick={() => push({ kind: 'selectSlot', slot: index })}
          />
        ))}
      </div>
    </div>
  );
}
