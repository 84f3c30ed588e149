import { useAtom, useAtomValue } from 'jotai';
import type { InventoryView } from '../../components/hud.js';
import { hudAtoms, inventoryAtom } from '../state/hud-atoms.js';
import { inventoryOpenAtom } from '../state/ui-atoms.js';
import { BLOCK_COLORS } from './block-colors.js';
import { BlockIcon } from './block-icon.js';
import { GamePanel } from './game-panel.js';
import { hotbarItem } from './hotbar.js';
import { ItemSlot } from './item-slot.js';
import { useGameCommand } from './use-game-command.js';

const BLOCK_TYPES = Object.keys(BLOCK_COLORS);

function displayName(blockType: string): string {
  return blockType.charAt(0).toUpperCase() + blockType.slice(1);
}

function HotbarPreview({ inventory }: { inventory: InventoryView | null }) {
  const selected = useAtomValue(hudAtoms.selectedSlot);
  return (
    <div className="inventory-hotbar" data-testid="inventory-hotbar">
      {Array.from({ length: 8 }, (_, index) => (
        <ItemSlot key={index} item={hotbarItem(inventory, index)} selected={index === selected} keyHint={String(index + 1)} label={`Hotbar preview ${index + 1}`} />
      ))}
    </div>
  );
}

function BlockCatalogue({ inventory, onPick }: { inventory: InventoryView | null; onPick(slot: number): void }) {
  return (
    <ul className="block-catalogue" data-testid="block-catalogue">
      {BLOCK_TYPES.map((blockType) => {
        const item = inventory?.items.find((candidate) => candidate?.blockType === blockType) ?? null;
        return (
          <li key={blockType}>
            <button type="button" className="catalogue-entry" disabled={!item} onClick={() => item && onPick(item.slot)}>
              <BlockIcon blockType={blockType} />
              <span>{displayName(blockType)}</span>
            </button>
          </li>
        );
      })}
    </ul>
  );
}

/** The inventory overlay (key I): 32 slots, the hotbar preview and the building blocks. */
export function InventoryPanel() {
  const [open, setOpen] = useAtom(inventoryOpenAtom);
  const inventory = useAtomValue(inventoryAtom);
  const push = useGameCommand();
  if (!open) return null;
  const pick = (slot: number) => push({ kind: 'inventoryClick', slot });
  return (
    <GamePanel title="INVENTORY" onClose={() => setOpen(false)} className="inventory-panel">
      <div className="inventory-grid" data-testid="inventory-grid">
        {Array.from({ length: 32 }, (_, slot) => {
          const item = inventory?.items[slot] ?? null;
          return <ItemSlot key={slot} item={item} label={`Inventory slot ${slot + 1}`} onClick={item ? () => pick(slot) : undefined} />;
        })}
      </div>
      <h3 className="panel-subtitle">HOTBAR</h3>
      <HotbarPreview inventory={inventory} />
      <h3 className="panel-subtitle">BUILDING BLOCKS</h3>
      <BlockCatalogue inventory={inventory} onPick={pick} />
      <p className="panel-hint">Click an item to put it in the hotbar</p>
    </GamePanel>
  );
}
