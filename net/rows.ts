/**
 * Rows of the shared tables (docs/game-rules.md §3) and pure mappers between rows and engine events.
 * Units follow docs/architecture.md "Units": players in pixels, blocks, voice clips and combat logs in tiles.
 */
import { DEFAULT_APPEARANCE, HAIR_STYLES, SHIRT_STYLES, type Appearance } from '../components/appearance-types.js';
import type { NetEvent } from '../components/network.js';

/** The columns a block read asks for: the engine needs the type and owner of each tile, nothing else. */
export const BLOCK_COLUMNS = 'x,y,block_type,player_id';

/** A row of game_blocks. */
export interface BlockRow {
  x: number;
  y: number;
  block_type: string;
  player_id: string;
  player_name: string;
  created_at?: string;
}

/** A row of game_players (presence). */
export interface PlayerRow {
  player_id: string;
  player_name: string;
  x: number;
  y: number;
  health: number;
  max_health: number;
  level: number;
  appearance: unknown;
  is_swinging: boolean;
  last_seen?: string;
  updated_at?: string;
}

/** A row of game_chat_messages. */
export interface ChatRow {
  id: string;
  player_id: string;
  player_name: string;
  message: string;
  created_at: string;
}

/** A row of game_voice_messages. */
export interface VoiceRow {
  id?: string;
  player_id: string;
  player_name: string;
  audio_data: string;
  x: number;
  y: number;
  created_at?: string;
}

/** A row of game_combat_logs. */
export interface CombatLogRow {
  attacker_id: string;
  attacker_name: string;
  victim_id: string;
  victim_name: string;
  damage: number;
  weapon_type: 'sword';
  /** The victim's tile (the server sets it from the victim's presence row). */
  x: number;
  y: number;
  /** The attacker's position in pixels when it swung; the server checks range from it. */
  attacker_x?: number;
  attacker_y?: number;
}

/** What the local player looks like to the presence table. */
export interface LocalPlayerState {
  id: string;
  name: string;
  x: number;
  y: number;
  health: number;
  maxHealth: number;
  level: number;
  appearance: Appearance;
  isSwinging: boolean;
}

/** The engine event for a block row. */
export function blockRowToEvent(row: BlockRow): Extract<NetEvent, { kind: 'blockSet' }> {
  return { kind: 'blockSet', x: row.x, y: row.y, blockType: row.block_type, owner: row.player_id };
}

/** The engine event for a presence row. Unknown or malformed appearance falls back to the defaults. */
export function playerRowToEvent(row: PlayerRow): NetEvent {
  return {
    kind: 'playerUpsert',
    id: row.player_id,
    name: row.player_name,
    x: row.x,
    y: row.y,
    health: row.health,
    maxHealth: row.max_health,
    level: row.level,
    appearance: readAppearance(row.appearance),
    isSwinging: row.is_swinging,
  };
}

/** The presence row for the local player, with the position rounded to whole pixels. */
export function localPlayerToRow(player: LocalPlayerState, now: Date): PlayerRow {
  const stamp = now.toISOString();
  return {
    player_id: player.id,
    player_name: player.name,
    x: Math.round(player.x),
    y: Math.round(player.y),
    health: player.health,
    max_health: player.maxHealth,
    level: player.level,
    appearance: { ...player.appearance },
    is_swinging: player.isSwinging,
    last_seen: stamp,
    updated_at: stamp,
  };
}

const COLOUR = /^#[0-9A-Fa-f]{6}$/;

/** Reads an appearance from untrusted JSON, keeping each valid field and defaulting the rest. */
export function readAppearance(value: unknown): Appearance {
  const source = (typeof value === 'object' && value !== null ? value : {}) as Record<string, unknown>;
  const colour = (key: keyof Appearance): string => {
    const field = source[key];
    return typeof field === 'string' && COLOUR.test(field) ? field : DEFAULT_APPEARANCE[key];
  };
  const hairStyle = HAIR_STYLES.find((style) => style === source.hairStyle) ?? DEFAULT_APPEARANCE.hairStyle;
  const shirtStyle = SHIRT_STYLES.find((style) => style === source.shirtStyle) ?? DEFAULT_APPEARANCE.shirtStyle;
  return {
    skinColor: colour('skinColor'),
    hairColor: colour('hairColor'),
    hairStyle,
    shirtColor: colour('shirtColor'),
    shirtStyle,
    pantsColor: colour('pantsColor'),
    shoeColor: colour('shoeColor'),
  };
}
