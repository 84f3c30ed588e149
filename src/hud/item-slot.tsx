import type { ItemView } from '../../components/hud.js';
import { BlockIcon } from './block-icon.js';
import { Tooltip } from './tooltip.js';

/** Props of {@link ItemSlot}. */
export interface ItemSlotProps {
  item: ItemView | null;
  selected?: boolean;
  /** A number shown in the corner, e.g. the hotbar key. */
  keyHint?: string;
  label: string;
  onClick?(): void;
}

/** One square slot with a block icon and its quantity when above 1. */
export function ItemSlot({ item, selected = false, keyHint, label, onClick }: ItemSlotProps) {
  const slot = (
    <button
      type="button"
      className={`item-slot ${selected ? 'is-selected' : ''} ${item ? '' : 'is-empty'}`}
      aria-label={label}
      aria-pressed={selected}
      onClick={onClick}
    >
      {keyHint ? <span className="slot-key">{keyHint}</span> : null}
      {item ? <BlockIcon blockType={item.blockType} /> : null}
      {item && item.quantity > 1 ? <span className="slot-quantity">{item.quantity}</span> : null}
    </button>
  );
  return item ? <Tooltip label={`${item.name} x${item.quantity}`}>{slot}</Tooltip> : slot;
}
