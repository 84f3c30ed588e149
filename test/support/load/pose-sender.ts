/**
 * net/poses/poses.ts's pose sender (`createPoseSender`) without allocation: the same decisions (a pose
 * when the direction, facing, swing or topic changes, a keyframe every POSE_KEYFRAME_STEPS while
 * walking, the stop's repeats, a standing keyframe, a correction past POSE_DRIFT_PX) kept in
 * numbers, and the payload written straight as the JSON `JSON.stringify` makes of net/'s payload.
 * A bot calls it every step, thousands of bots a step, so it makes no object per call.
 * `test/unit/load/bot-wire.test.ts` holds it to net/'s sender, payload for payload.
 */
import { walkVelocity } from '../../../protocol/movement.js';
import { POSE_DRIFT_PX, POSE_KEYFRAME_STEPS, POSE_STANDING_KEYFRAME_STEPS, POSE_STOP_REPEAT_STEPS } from '../../../net/poses/poses.js';

/** walkVelocity's speeds (components/pose.ts), read once: a step along an axis, and along each axis of a diagonal. */
const STRAIGHT_SPEED = walkVelocity(1, 0).vx;
const DIAGONAL_SPEED = walkVelocity(1, 1).vx;

/** The pose sender of one bot; see the module comment. */
export class PoseSender {
  private readonly idJson: string;
  private hasPrevious = false;
  private previousX = 0;
  private previousY = 0;
  private directionX = 0;
  private directionY = 0;
  private hasLast = false;
  private lastX = 0;
  private lastY = 0;
  private lastDx = 0;
  private lastDy = 0;
  private lastF = 0;
  private lastS = false;
  private lastTopic = '';
  private lastN = 0;
  private stoppedAt = -1;
  /** The pose `due` returned, recorded by `sent`. */
  private dueX = 0;
  private dueY = 0;
  private dueF = 0;
  private dueS = false;
  private dueN = 0;
  private dueTopic = '';

  constructor(playerId: string) {
    this.idJson = JSON.stringify(playerId);
  }

  /** The payload (JSON) due at step `n` on `topic` for the pose, or null; call {@link sent} once it went out. */
  due(x: number, y: number, facing: number, moving: boolean, swinging: boolean, n: number, topic: string, now: number): string | null {
    const mx = this.hasPrevious ? Math.sign(x - this.previousX) : 0;
    const my = this.hasPrevious ? Math.sign(y - this.previousY) : 0;
    this.hasPrevious = true;
    this.previousX = x;
    this.previousY = y;
    if (!moving) {
      this.directionX = 0;
      this.directionY = 0;
    } else if (mx !== 0 || my !== 0) {
      this.directionX = mx;
      this.directionY = my;
    }
    const f = Math.sign(facing);
    const changed = !this.hasLast || this.lastDx !== this.directionX || this.lastDy !== this.directionY || this.lastF !== f || this.lastS !== swinging || this.lastTopic !== topic;
    if (!changed && !this.keyframeDue(n) && !this.strayed(x, y, n)) return null;
    this.dueX = Math.round(x);
    this.dueY = Math.round(y);
    this.dueF = f;
    this.dueS = swinging;
    this.dueN = n;
    this.dueTopic = topic;
    return `{"id":${this.idJson},"x":${this.dueX},"y":${this.dueY},"dx":${this.directionX},"dy":${this.directionY},"n":${n},"f":${f},"s":${swinging},"t":${now}}`;
  }

  /** Records that the payload {@link due} returned last went out (on the topic it was due on). */
  sent(): void {
    const standing = this.directionX === 0 && this.directionY === 0;
    const wasStanding = this.lastDx === 0 && this.lastDy === 0;
    // A first pose is no stop (net/poses/poses.ts): it is not repeated.
    this.stoppedAt = !standing ? -1
      : !this.hasLast ? this.dueN - POSE_STOP_REPEAT_STEPS[POSE_STOP_REPEAT_STEPS.length - 1]!
      : wasStanding ? this.stoppedAt : this.dueN;
    this.hasLast = true;
    this.lastX = this.dueX;
    this.lastY = this.dueY;
    this.lastDx = this.directionX;
    this.lastDy = this.directionY;
    this.lastF = this.dueF;
    this.lastS = this.dueS;
    this.lastN = this.dueN;
    this.lastTopic = this.dueTopic;
  }

  private keyframeDue(n: number): boolean {
    if (this.lastDx !== 0 || this.lastDy !== 0) return n - this.lastN >= POSE_KEYFRAME_STEPS;
    const since = n - this.stoppedAt;
    for (const after of POSE_STOP_REPEAT_STEPS) if (this.lastN - this.stoppedAt < after) return since >= after;
    return n - this.lastN >= POSE_STANDING_KEYFRAME_STEPS;
  }

  private strayed(x: number, y: number, n: number): boolean {
    const speed = this.lastDx !== 0 && this.lastDy !== 0 ? DIAGONAL_SPEED : STRAIGHT_SPEED;
    const vx = this.lastDx * speed;
    const vy = this.lastDy * speed;
    return Math.hypot(x - (this.lastX + vx * (n - this.lastN)), y - (this.lastY + vy * (n - this.lastN))) > POSE_DRIFT_PX;
  }
}
