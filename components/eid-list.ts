/**
 * A list of eids that keeps its storage: emptying it (`length = 0`) frees nothing, so a list that
 * is filled and emptied every step makes no garbage, unlike an array whose length is set to 0
 * (which drops its backing store, so refilling it allocates again). Callers bound what they
 * append (each eid at most once per step), so a list holds at most a world's capacity.
 */

/** The eids are `eids[0]` to `eids[length - 1]`. */
export interface EidList {
  eids: Uint32Array;
  length: number;
}

/** An empty list with room for `capacity` eids before it first grows. */
export function createEidList(capacity = 64): EidList {
  return { eids: new Uint32Array(capacity), length: 0 };
}

/** Appends `eid`; the storage doubles when full. */
export function pushEid(list: EidList, eid: number): void {
  if (list.length === list.eids.length) {
    const bigger = new Uint32Array(list.eids.length * 2);
    bigger.set(list.eids);
    list.eids = bigger;
  }
  list.eids[list.length++] = eid;
}

/** Sets the length to `length`, growing the storage if needed and keeping the eids already there; the caller writes the rest. */
export function resizeEidList(list: EidList, length: number): void {
  if (length > list.eids.length) {
    let capacity = list.eids.length * 2;
    while (capacity < length) capacity *= 2;
    const bigger = new Uint32Array(capacity);
    bigger.set(list.eids.subarray(0, list.length));
    list.eids = bigger;
  }
  list.length = length;
}
