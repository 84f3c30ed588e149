import type { GameCommand } from '../components/hud.js';
import { writeLook } from '../components/appearance.js';
import { clickInventorySlot, selectHotbar } from '../components/inventory.js';
import type { GameWorld } from '../components/world.js';
import { NAME_MAX_LENGTH } from '../protocol/rules.js';
import { restoreBlocks } from './apply-builds.js';

function apply(world: GameWorld, cmd: GameCommand): void {
  switch (cmd.kind) {
    case 'selectSlot':
      selectHotbar(world.inventory, cmd.slot);
      return;
    case 'inventoryClick':
      clickInventorySlot(world.inventory, cmd.slot);
      return;
    case 'setAppearance':
      if (world.local) writeLook(world.look, world.local, cmd.appearance);
      return;
    case 'setName': {
      const name = cmd.name.trim().slice(0, NAME_MAX_LENGTH);
      if (world.local && name) world.names[world.local] = name;
      return;
    }
    case 'restoreBlocks':
      restoreBlocks(world);
      return;
    case 'showClaims':
      world.claims.shown = cmd.shown;
      return;
    case 'claimTool':
      world.claims.tool = { active: cmd.active, anchor: null, draft: null };
      return;
  }
}

/** Drains the commands the HUD pushed: hotbar selection, the inventory click rule, appearance, name, restoring blocks and the claim view and tool. */
export function applyCommands(world: GameWorld): void {
  const commands = world.commands;
  if (commands.length === 0) return;
  for (const cmd of commands.splice(0, commands.length)) apply(world, cmd);
}
