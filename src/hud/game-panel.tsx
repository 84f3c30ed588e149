import type { ReactNode } from 'react';

/** Props of {@link GamePanel}. */
export interface GamePanelProps {
  title: string;
  onClose(): void;
  className?: string;
  children: ReactNode;
}

/** A titled overlay window over the game view with an [ESC] close button. */
export function GamePanel({ title, onClose, className = '', children }: GamePanelProps) {
  return (
    <section className={`pixel-panel game-panel ${className}`} role="dialog" aria-label={title}>
      <header className="game-panel-header">
        <h2 className="game-panel-title">{title}</h2>
        <button type="button" className="pixel-button pixel-button--small" onClick={onClose}>
          [ESC]
        </button>
      </header>
      {children}
    </section>
  );
}
