/** The sound-effect settings: a volume and a mute toggle, kept in localStorage. */
import { atom } from 'jotai';
import type { SoundSettings } from '../audio/effects.js';

/** The localStorage key of the settings (JSON). */
export const SOUND_SETTINGS_KEY = 'tessera_sound';

const DEFAULT_SETTINGS: SoundSettings = Object.freeze({ volume: 0.7, muted: false });

/** The stored settings, or the defaults (volume 70 %, on) when none or broken ones are stored. */
export function loadSoundSettings(): SoundSettings {
  try {
    const stored = JSON.parse(localStorage.getItem(SOUND_SETTINGS_KEY) ?? 'null') as Partial<SoundSettings> | null;
    const volume = typeof stored?.volume === 'number' ? Math.min(1, Math.max(0, stored.volume)) : DEFAULT_SETTINGS.volume;
    return { volume, muted: stored?.muted === true };
  } catch {
    return { ...DEFAULT_SETTINGS };
  }
}

const settingsAtom = atom<SoundSettings>(loadSoundSettings());

/** The settings; writing them also stores them. */
export const soundSettingsAtom = atom(
  (get) => get(settingsAtom),
  (_get, set, settings: SoundSettings) => {
    localStorage.setItem(SOUND_SETTINGS_KEY, JSON.stringify(settings));
    set(settingsAtom, settings);
  },
);
