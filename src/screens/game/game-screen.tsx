import { useAtom, useAtomValue, type PrimitiveAtom } from 'jotai';
import { useRef, type ReactNode } from 'react';
import { ChatPanel } from '../../hud/chat-panel.js';
import { CombatWarning } from '../../hud/combat-warning.js';
import { CustomisePanel } from '../../hud/customise-panel.js';
import { DefeatedBanner } from '../../hud/defeated-banner.js';
import { EnteringProgress } from '../../hud/entering-progress.js';
import { HelpText } from '../../hud/help-text.js';
import { Hotbar } from '../../hud/hotbar.js';
import { InventoryPanel } from '../../hud/inventory-panel.js';
import { LandPanel } from '../../hud/land-panel.js';
import { Minimap } from '../../hud/minimap.js';
import { NameMenu } from '../../hud/name-menu.js';
import { PanelButtons } from '../../hud/panel-buttons.js';
import { PlayerStatus } from '../../hud/player-status.js';
import { PlayersOnline } from '../../hud/players-online.js';
import { ReconnectBanner } from '../../hud/reconnect-banner.js';
import { PositionOverlay } from '../../hud/position-overlay.js';
import { RestoreButton } from '../../hud/restore-button.js';
import { SoundControls } from '../../hud/sound-controls.js';
import { TouchControls } from '../../hud/touch-controls.js';
import { Toasts } from '../../hud/toasts.js';
import { usePanelKeys } from '../../hud/use-panel-keys.js';
import { VoicePanel } from '../../hud/voice-panel.js';
import { ZoneIndicator } from '../../hud/zone-indicator.js';
import { chatOpenAtom, touchLayoutAtom, voiceOpenAtom } from '../../state/ui-atoms.js';
import { publicKeyAtom, usernameAtom } from '../../state/wallet-atoms.js';
import { useGameEngine } from './use-game-engine.js';

/** In the touch layout a side panel is a sheet that opens from its panel button and closes again. */
function TouchSheet({ open, label, children }: { open: PrimitiveAtom<boolean>; label: string; children: ReactNode }) {
  const [isOpen, setOpen] = useAtom(open);
  if (!isOpen) return null;
  return (
    <div className="touch-sheet">
      {children}
      <button type="button" className="pixel-button pixel-button--small touch-sheet-close" aria-label={`Close ${label}`} onClick={() => setOpen(false)}>
        [X]
      </button>
    </div>
  );
}

function SidePanels() {
  const walletAddress = useAtomValue(publicKeyAtom) ?? 'unknown';
  const playerName = useAtomValue(usernameAtom) || 'Anonymous';
  const chat = <ChatPanel walletAddress={walletAddress} playerName={playerName} />;
  const voice = <VoicePanel walletAddress={walletAddress} playerName={playerName} />;
  if (useAtomValue(touchLayoutAtom)) {
    return (
      <>
        <TouchSheet open={chatOpenAtom} label="chat">{chat}</TouchSheet>
        <TouchSheet open={voiceOpenAtom} label="voice chat">{voice}</TouchSheet>
      </>
    );
  }
  return (
    <aside className="side-panels">
      {chat}
      {voice}
    </aside>
  );
}

/**
 * The game screen: the 800x600 world view with its HUD, and the chat and voice panels. In the
 * touch layout the view fills the screen, touch controls appear and chat and voice open as sheets.
 */
export function GameScreen() {
  const canvas = useRef<HTMLCanvasElement>(null);
  const touch = useAtomValue(touchLayoutAtom);
  useGameEngine(canvas, touch);
  usePanelKeys();
  return (
    <div className={`game-screen ${touch ? 'is-touch' : ''}`}>
      <main className="play-area">
        <div className="stage" data-testid="stage">
          <canvas ref={canvas} className="game-canvas" width={800} height={600} onContextMenu={(event) => event.preventDefault()} />
          <div className="hud-top-left">
            <PositionOverlay />
            <PlayerStatus />
            <RestoreButton />
          </div>
          <div className="hud-top-right">
            <ZoneIndicator />
            <PlayersOnline />
            <CombatWarning />
          </div>
          <PanelButtons />
          <Minimap />
          <Hotbar />
          <InventoryPanel />
          <CustomisePanel />
          <LandPanel />
          {touch && <TouchControls />}
          <DefeatedBanner />
          <ReconnectBanner />
          <EnteringProgress />
          <Toasts />
        </div>
        {!touch && <HelpText />}
        {!touch && <SoundControls />}
      </main>
      <SidePanels />
      <NameMenu />
    </div>
  );
}
