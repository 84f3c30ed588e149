import { useAtom, useAtomValue } from 'jotai';
import { VOICE_RANGE_TILES } from '../../components/sounds.js';
import { touchLayoutAtom } from '../state/ui-atoms.js';
import { SoundControls } from './sound-controls.js';
import { audioEnabledAtom, recordingAtom, voiceOnlineAtom } from '../state/social-atoms.js';
import { getGameServices, type Sender } from '../state/services.js';
import { showToast } from '../state/toasts.js';
import type { SocialPanelProps } from './chat-panel.js';
import { Tooltip } from './tooltip.js';

function HoldToTalk({ sender }: { sender: Sender }) {
  const [recording, setRecording] = useAtom(recordingAtom);
  const start = () => {
    setRecording(true);
    getGameServices()
      ?.startTalking(sender)
      .catch((error: unknown) => {
        console.error('Microphone error', error);
        setRecording(false);
        showToast({ title: 'Microphone Error', description: 'Could not access microphone. Please check permissions.', variant: 'destructive' });
      });
  };
  const stop = () => {
    if (!recording) return;
    setRecording(false);
    getGameServices()
      ?.stopTalking(sender)
      .catch((error: unknown) => {
        console.error('Voice message failed', error);
        showToast({ title: 'Voice Message Failed', description: 'Could not send voice message.', variant: 'destructive' });
      });
  };
  return (
    <button
      type="button"
      className={`pixel-button talk-button ${recording ? 'is-recording' : ''}`}
      onPointerDown={start}
      onPointerUp={stop}
      onPointerLeave={stop}
      onContextMenu={(event) => event.preventDefault()}
    >
      {recording ? 'Recording...' : 'Hold to Talk'}
    </button>
  );
}

function AudioToggle() {
  const [enabled, setEnabled] = useAtom(audioEnabledAtom);
  return (
    <Tooltip label={enabled ? 'Mute incoming voice' : 'Unmute incoming voice'}>
      <button type="button" className={`pixel-button pixel-button--small ${enabled ? '' : 'is-off'}`} aria-pressed={enabled} onClick={() => setEnabled(!enabled)}>
        {enabled ? 'Audio' : 'Muted'}
      </button>
    </Tooltip>
  );
}

function OnlineToggle() {
  const [online, setOnline] = useAtom(voiceOnlineAtom);
  return (
    <Tooltip label={online ? 'Stop listening to voice clips' : 'Listen to voice clips'}>
      <button type="button" className={`pixel-button pixel-button--small ${online ? '' : 'is-off'}`} aria-pressed={online} onClick={() => setOnline(!online)}>
        {online ? 'Online' : 'Offline'}
      </button>
    </Tooltip>
  );
}

/** The proximity voice panel: hold to talk, the audio and online toggles, and the range. 12rem high. */
export function VoicePanel({ walletAddress, playerName }: SocialPanelProps) {
  return (
    <section className="pixel-panel side-panel voice-panel" aria-label="Voice chat" data-wallet={walletAddress} data-player={playerName}>
      <header className="side-panel-header">
        <h2 className="side-panel-title">VOICE CHAT</h2>
        <p className="voice-range">{`Range: ${VOICE_RANGE_TILES} blocks`}</p>
      </header>
      <HoldToTalk sender={{ playerId: walletAddress, playerName }} />
      <div className="button-row">
        <AudioToggle />
        <OnlineToggle />
      </div>
      {useAtomValue(touchLayoutAtom) && <SoundControls />}
    </section>
  );
}
