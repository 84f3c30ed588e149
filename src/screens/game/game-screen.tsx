import { useAtomValue } from 'jotai';
import { useRef } from 'react';
import { ChatPanel } from '../../hud/chat-panel.js';
import { CombatWarning } from '../../hud/combat-warning.js';
import { CustomisePanel } from '../../hud/customise-panel.js';
import { DefeatedBanner } from '../../hud/defeated-banner.js';
import { HelpText } from '../../hud/help-text.js';
import { Hotbar } from '../../hud/hotbar.js';
import { InventoryPanel } from '../../hud/inventory-panel.js';
import { Minimap } from '../../hud/minimap.js';
import { PanelButtons } from '../../hud/panel-buttons.js';
import { PlayerStatus } from '../../hud/player-status.js';
import { PlayersOnline } from '../../hud/players-online.js';
import { PositionOverlay } from '../../hud/position-overlay.js';
import { Toasts } from '../../hud/toasts.js';
import { usePanelKeys } from '../../hud/use-panel-keys.js';
import { VoicePanel } from '../../hud/voice-panel.js';
import { ZoneIndicator } from '../../hud/zone-indicator.js';
import { publicKeyAtom, usernameAtom } from '../../state/wallet-atoms.js';
import { useGameEngine } from './use-game-engine.js';

function SidePanels() {
  const walletAddress = useAtomValue(publicKeyAtom) ?? 'unknown';
  const playerName = useAtomValue(usernameAtom) || 'Anonymous';
  return (
    <aside className="side-panels">
      <ChatPanel walletAddress={walletAddress} playerName={playerName} />
      <VoicePanel walletAddress={walletAddress} playerName={playerName} />
    </aside>
  );
}

/** The game screen: the 800x600 world view with its HUD, and the chat and voice panels. */
export function GameScreen() {
  const canvas = useRef<HTMLCanvasElement>(null);
  useGameEngine(canvas);
  usePanelKeys();
  return (
    <div className="game-screen">
      <main className="play-area">
        <div className="stage" data-testid="stage">
          <canvas ref={canvas} className="game-canvas" width={800} height={600} onContextMenu={(event) => event.preventDefault()} />
          <div className="hud-top-left">
            <PositionOverlay />
            <PlayerStatus />
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
          <DefeatedBanner />
          <Toasts />
        </div>
        <HelpText />
      </main>
      <SidePanels />
    </div>
  );
}
