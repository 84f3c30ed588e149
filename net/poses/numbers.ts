/**
 * The sequence numbers pose events carry (`seq`; on the wire `n`, net/poses/poses.ts). They count
 * steps: there is one count of steps, the engine's (`world.step`, handed to the session each
 * step), and a session only moves it by a fixed offset.
 */

/**
 * Pose events carry the engine's step number moved by one offset, fixed at the session's first
 * step so that its first pose number is `clockStep + 1` (`clockStep`: the wall clock in steps
 * when the session started). The count is the engine's; the offset makes a reloaded page, whose
 * engine counts from 0 again, go on numbering upward, so receivers do not take its poses for old
 * ones.
 */
export function poseNumbering(clockStep: number): (engineStep: number) => number {
  let offset: number | null = null;
  return (engineStep) => {
    offset ??= clockStep + 1 - engineStep;
    return offset + engineStep;
  };
}
