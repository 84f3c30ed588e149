/**
 * The claims the client knows (at most CLAIMS_KEPT, the player's own always kept) and the ones
 * the player is trusted on: set whole by reads, changed by live `claims` messages, and shown to
 * the engine as one `claims` event.
 */
import type { Claim, TileRect } from '../../components/claims.js';
import type { NetEvent } from '../../components/network.js';
import type { ClaimChanges, ClaimRow } from '../../protocol/claim-changes.js';
import { overlaps } from './area.js';

/** Most claims the client keeps; live claims beyond it wait for the next read. */
export const CLAIMS_KEPT = 1000;

/** The known claims and trusts of player `me`. */
export interface KnownClaims {
  /** Applies a live message; returns whether the list shown and whether the player's own claims changed. */
  apply(changes: ClaimChanges): { shown: boolean; own: boolean };
  /** Replaces everything with a read: the claims `rows` and the trusts `trusts`. */
  replaceAll(rows: readonly ClaimRow[], trusts: readonly string[]): void;
  /**
   * Replaces the claims overlapping `rect` with `rows` read there (unless the read was cut at
   * CLAIMS_KEPT, when they are only added) and the trusts with `trusts`.
   */
  replaceIn(rect: TileRect, rows: readonly ClaimRow[], trusts: readonly string[]): void;
  set(row: ClaimRow): void;
  delete(id: string): void;
  /** The player's own claims known. */
  own(): ClaimRow[];
  /** Emits the list as a `claims` event. */
  publish(): void;
}

/** An empty store for player `me`, publishing through `emit`. */
export function createKnownClaims(me: string, emit: (event: NetEvent) => void): KnownClaims {
  const known = new Map<string, ClaimRow>();
  const trusted = new Set<string>();

  const trustAll = (trusts: readonly string[]) => {
    trusted.clear();
    for (const id of trusts) trusted.add(id);
  };

  /** Sets or withdraws the player's trusts in `list`; returns whether the list shown and the player's own claims changed. */
  function applyTrusts(list: ClaimChanges['trusted'], add: boolean): { shown: boolean; own: boolean } {
    let shown = false;
    let own = false;
    for (const { claim_id, player_id } of list) {
      if (player_id === me) {
        const before = trusted.has(claim_id);
        if (add) trusted.add(claim_id);
        else trusted.delete(claim_id);
        shown ||= before !== add;
      }
      own ||= known.get(claim_id)?.owner_id === me;
    }
    return { shown, own };
  }

  return {
    apply(changes) {
      let shown = false;
      let own = false;
      for (const row of changes.made) {
        const before = known.get(row.id);
        if (!before && known.size >= CLAIMS_KEPT && row.owner_id !== me) continue;
        known.set(row.id, row);
        shown = true;
        own ||= !before && row.owner_id === me;
      }
      for (const row of changes.gone) {
        const wasKnown = known.delete(row.id);
        const wasTrusted = trusted.delete(row.id);
        shown ||= wasKnown || wasTrusted;
        own ||= (wasKnown && row.owner_id === me) || wasTrusted;
      }
      for (const [list, add] of [[changes.trusted, true], [changes.untrusted, false]] as const) {
        const changed = applyTrusts(list, add);
        shown ||= changed.shown;
        own ||= changed.own;
      }
      return { shown, own };
    },
    replaceAll(rows, trusts) {
      known.clear();
      for (const row of rows) known.set(row.id, row);
      trustAll(trusts);
    },
    replaceIn(rect, rows, trusts) {
      if (rows.length < CLAIMS_KEPT) {
        for (const [id, row] of known) if (overlaps(row, rect)) known.delete(id);
      }
      for (const row of rows) if (known.size < CLAIMS_KEPT || known.has(row.id) || row.owner_id === me) known.set(row.id, row);
      trustAll(trusts);
    },
    set: (row) => void known.set(row.id, row),
    delete: (id) => void known.delete(id),
    own: () => [...known.values()].filter((row) => row.owner_id === me),
    publish() {
      const claims: Claim[] = [];
      for (const row of known.values()) {
        claims.push({ id: row.id, ownerId: row.owner_id, ownerName: row.owner_name, x1: row.x1, y1: row.y1, x2: row.x2, y2: row.y2, trusted: trusted.has(row.id) });
      }
      emit({ kind: 'claims', claims });
    },
  };
}
