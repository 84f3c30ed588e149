/**
 * The local player's inventory (docs/game-rules.md §3): 32 slots, a hotbar of 8 entries that point at
 * inventory slots, and the selected hotbar entry. Plain functions over a plain record.
 */
import type { InventoryView, ItemView } from './hud.js';
import { BLOCK_TYPES, blockDisplayName } from './blocks.js';
import { HOTBAR_SLOTS, INVENTORY_SLOTS } from './constants.js';

/** One stack of items. */
export type Item = ItemView;

/** Inventory state; `version` increments on every change. */
export interface Inventory {
  items: (Item | null)[];
  /** hotbar[i] is the inventory slot shown in hotbar entry i, or null. */
  hotbar: (number | null)[];
  selectedSlot: number;
  version: number;
}

/** Starting quantities of docs/game-rules.md §3, in slot order. */
export const STARTING_QUANTITIES: Readonly<Record<(typeof BLOCK_TYPES)[number], number>> = Object.freeze({
  stone: 64, wood: 32, brick: 16, dirt: 48, gold: 8, iron: 24, diamond: 4, emerald: 3,
  coal: 40, obsidian: 12, glass: 20, sand: 50, cobblestone: 64, marble: 16, copper: 30, redstone: 25,
});

function blockItem(slot: number, blockType: string, quantity: number): Item {
  return { slot, id: blockType, name: blockDisplayName(blockType), type: 'block', blockType, quantity };
}

/** The starting inventory: the 16 block stacks in slots 0-15, the first 8 on the hotbar, entry 0 selected. */
export function createInventory(): Inventory {
  const items: (Item | null)[] = new Array<Item | null>(INVENTORY_SLOTS).fill(null);
  BLOCK_TYPES.forEach((type, slot) => {
    items[slot] = blockItem(slot, type, STARTING_QUANTITIES[type]);
  });
  const hotbar = Array.from({ length: HOTBAR_SLOTS }, (_, i) => i);
  return { items, hotbar, selectedSlot: 0, version: 0 };
}

/** The item in the selected hotbar entry, or null. */
export function selectedItem(inv: Inventory): Item | null {
  const slot = inv.hotbar[inv.selectedSlot];
  return slot == null ? null : inv.items[slot] ?? null;
}

/** Selects hotbar entry `slot` (0-7); other values are ignored. */
export function selectHotbar(inv: Inventory, slot: number): void {
  if (!Number.isInteger(slot) || slot < 0 || slot >= HOTBAR_SLOTS || slot === inv.selectedSlot) return;
  inv.selectedSlot = slot;
  inv.version++;
}

/** Whether the inventory holds at least one `blockType`. */
export function hasBlock(inv: Inventory, blockType: string): boolean {
  return inv.items.some((it) => it?.blockType === blockType && it.quantity > 0);
}

/** Removes one `blockType` from the inventory (the selected stack first); an emptied stack frees its slot. Returns whether one was taken. */
export function takeBlock(inv: Inventory, blockType: string): boolean {
  const selected = selectedItem(inv);
  const item = selected?.blockType === blockType ? selected : inv.items.find((it) => it?.blockType === blockType);
  if (!item) return false;
  item.quantity--;
  if (item.quantity <= 0) {
    inv.items[item.slot] = null;
    inv.hotbar = inv.hotbar.map((s) => (s === item.slot ? null : s));
  }
  inv.version++;
  return true;
}

/**
 * Adds one `blockType`: onto an existing stack of that type, else as a new stack in the first
 * empty slot, which also takes the first empty hotbar entry. Returns false when the inventory is full.
 */
export function giveBlock(inv: Inventory, blockType: string): boolean {
  const stack = inv.items.find((it) => it?.blockType === blockType);
  if (stack) {
    stack.quantity++;
  } else {
    const slot = inv.items.indexOf(null);
    if (slot < 0) return false;
    inv.items[slot] = blockItem(slot, blockType, 1);
    const free = inv.hotbar.indexOf(null);
    if (free >= 0) inv.hotbar[free] = slot;
  }
  inv.version++;
  return true;
}

/**
 * The inventory click rule of docs/game-rules.md §2: the item in `slot` goes to the first empty hotbar
 * entry, or into the selected entry when none is empty. An item already on the hotbar stays put,
 * so it never shows twice; clicking an empty slot does nothing.
 */
export function clickInventorySlot(inv: Inventory, slot: number): void {
  if (!inv.items[slot] || inv.hotbar.includes(slot)) return;
  const free = inv.hotbar.findIndex((s) => s === null);
  inv.hotbar[free >= 0 ? free : inv.selectedSlot] = slot;
  inv.version++;
}

/** A fresh copy of the inventory for the HUD. */
export function inventoryView(inv: Inventory): InventoryView {
  return {
    items: inv.items.map((it) => (it ? { ...it } : null)),
    hotbar: [...inv.hotbar],
    selectedSlot: inv.selectedSlot,
  };
}
