import { useAtom } from 'jotai';
import { soundSettingsAtom } from '../state/sound-atoms.js';

/** Sound effects: a mute toggle and a volume slider (0-100), both kept in localStorage. */
export function SoundControls() {
  const [settings, setSettings] = useAtom(soundSettingsAtom);
  return (
    <div className="sound-controls" role="group" aria-label="Sound effects">
      <button
        type="button"
        className={`pixel-button pixel-button--small ${settings.muted ? 'is-off' : ''}`}
        aria-pressed={!settings.muted}
        aria-label={settings.muted ? 'Unmute sound effects' : 'Mute sound effects'}
        onClick={() => setSettings({ ...settings, muted: !settings.muted })}
      >
        {settings.muted ? 'SFX OFF' : 'SFX ON'}
      </button>
      <input
        type="range"
        className="sound-volume"
        min={0}
        max={100}
        value={Math.round(settings.volume * 100)}
        aria-label="Sound effects volume"
        onChange={(event) => setSettings({ ...settings, volume: Number(event.target.value) / 100 })}
      />
    </div>
  );
}
