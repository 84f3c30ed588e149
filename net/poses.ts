/**
 * Live positions over Realtime broadcast on region channels. The local player sends its pose
 * to its own region's channel at 15 Hz while it moves (and once when it stops); it listens to
 * the 3x3 regions around it, so it hears only the players near it.
 */
import type { RealtimeChannel, SupabaseClient } from '@supabase/supabase-js';
import type { NetEvent } from '../components/network.js';
import { POSE_SEND_MS } from './constants.js';
import { regionOf, regionTopic, topicsAround } from './regions.js';

/** The local player's pose as the engine knows it. */
export interface Pose {
  x: number;
  y: number;
  facing: number;
  moving: boolean;
  isSwinging: boolean;
}

/** The broadcast payload: short keys, since it goes out 15 times a second. */
interface PosePayload {
  id: string;
  x: number;
  y: number;
  f: number;
  m: boolean;
  s: boolean;
  t: number;
}

/** What the pose channels need from their surroundings. */
export interface PoseOptions {
  playerId: string;
  emit(event: NetEvent): void;
  now(): number;
}

/** The live-position side of the network session. */
export interface PoseChannels {
  /** Called every step with the local pose: moves subscriptions and sends when due. */
  update(pose: Pose): void;
  /** Topics currently listened to. */
  topics(): string[];
  /** Poses received so far (for the figures). */
  received(): number;
  close(): Promise<void>;
}

/** Creates the region channels; nothing is joined until the first update. */
export function createPoseChannels(db: SupabaseClient, options: PoseOptions): PoseChannels {
  const channels = new Map<string, RealtimeChannel>();
  let lastSent = -Infinity;
  let lastPose: Pose | null = null;
  let receivedCount = 0;

  function join(topic: string): RealtimeChannel {
    const channel = db
      .channel(topic, { config: { broadcast: { self: false, ack: false } } })
      .on('broadcast', { event: 'pose' }, ({ payload }) => {
        const pose = payload as PosePayload;
        if (pose.id === options.playerId) return;
        receivedCount++;
        options.emit({ kind: 'playerPose', id: pose.id, x: pose.x, y: pose.y, facing: pose.f, moving: pose.m, swinging: pose.s, t: pose.t });
      })
      .subscribe();
    channels.set(topic, channel);
    return channel;
  }

  function follow(x: number, y: number) {
    const wanted = new Set(topicsAround(x, y));
    for (const [topic, channel] of channels) {
      if (!wanted.has(topic)) {
        channels.delete(topic);
        void db.removeChannel(channel);
      }
    }
    for (const topic of wanted) if (!channels.has(topic)) join(topic);
  }

  function send(pose: Pose) {
    const { rx, ry } = regionOf(pose.x, pose.y);
    const channel = channels.get(regionTopic(rx, ry));
    // Sending on a channel that is not joined would fall back to an HTTP request per pose.
    if (!channel || channel.state !== 'joined') return;
    const payload: PosePayload = {
      id: options.playerId,
      x: Math.round(pose.x),
      y: Math.round(pose.y),
      f: pose.facing,
      m: pose.moving,
      s: pose.isSwinging,
      t: options.now(),
    };
    void channel.send({ type: 'broadcast', event: 'pose', payload });
    lastSent = options.now();
    lastPose = pose;
  }

  return {
    update(pose) {
      follow(pose.x, pose.y);
      const changed =
        !lastPose || lastPose.moving !== pose.moving || lastPose.isSwinging !== pose.isSwinging || lastPose.facing !== pose.facing;
      const due = options.now() - lastSent >= POSE_SEND_MS;
      if ((pose.moving && due) || changed) send(pose);
    },
    topics: () => [...channels.keys()],
    received: () => receivedCount,
    close: async () => {
      await Promise.all([...channels.values()].map((channel) => db.removeChannel(channel)));
      channels.clear();
    },
  };
}
