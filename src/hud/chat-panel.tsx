import { useAtomValue, useSetAtom } from 'jotai';
import { useEffect, useRef, useState, type FormEvent, type KeyboardEvent } from 'react';
import { parseChatCommand, visibleChat } from '../../net/moderation.js';
import { getModeration, mutedWalletsAtom, nameMenuAtom } from '../state/moderation-atoms.js';
import { chatMessagesAtom, onlineCountAtom, type ChatMessage } from '../state/social-atoms.js';
import { MutedList } from './muted-list.js';
import { getGameServices, type Sender } from '../state/services.js';
import { chatProblem, stripInvisible } from '../../components/text.js';
import { CHAT_MAX_LENGTH } from '../../protocol/rules.js';

/** Props of the chat and voice panels. */
export interface SocialPanelProps {
  /** The wallet address, or 'unknown'. */
  walletAddress: string;
  /** The player name, or 'Anonymous'. */
  playerName: string;
}

/** '1 player online' or 'N players online'. */
export function onlineLabel(count: number): string {
  return count === 1 ? '1 player online' : `${count} players online`;
}

function ChatHeader() {
  const count = useAtomValue(onlineCountAtom);
  return (
    <header className="side-panel-header">
      <h2 className="side-panel-title">LIVE CHAT</h2>
      <p className="chat-online" data-testid="chat-online">
        {onlineLabel(count)}
      </p>
    </header>
  );
}

function formatTime(iso: string): string {
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? '' : date.toLocaleTimeString([], { hour: '2-digit', minute: '2-digit' });
}

function ChatLine({ message, own }: { message: ChatMessage; own: boolean }) {
  const openMenu = useSetAtom(nameMenuAtom);
  const author = own ? (
    <span className="chat-author">{message.player_name}</span>
  ) : (
    <button
      type="button"
      className="chat-author chat-author-button"
      onClick={(event) => openMenu({ wallet: message.player_id, name: message.player_name, x: event.clientX, y: event.clientY })}
    >
      {message.player_name}
    </button>
  );
  return (
    <li className={`chat-line ${own ? 'is-own' : ''}`}>
      <p className="chat-meta">
        {author} <time className="chat-time">{formatTime(message.created_at)}</time>
      </p>
      <p className="chat-text">{message.message}</p>
    </li>
  );
}

function ChatMessages({ walletAddress }: { walletAddress: string }) {
  const all = useAtomValue(chatMessagesAtom);
  const muted = useAtomValue(mutedWalletsAtom);
  const messages = all === null ? null : visibleChat(all, muted);
  const list = useRef<HTMLOListElement>(null);
  useEffect(() => {
    list.current?.scrollTo({ top: list.current.scrollHeight });
  }, [messages]);
  if (messages === null) return <p className="chat-empty">Loading chat...</p>;
  if (messages.length === 0) return <p className="chat-empty">No messages yet. Be the first to chat!</p>;
  return (
    <ol ref={list} className="chat-messages" data-testid="chat-messages">
      {messages.map((message) => (
        <ChatLine key={message.id} message={message} own={message.player_id === walletAddress} />
      ))}
    </ol>
  );
}

function ChatInput({ sender }: { sender: Sender }) {
  const [text, setText] = useState('');
  const [problem, setProblem] = useState<string | null>(null);
  const send = (event: FormEvent) => {
    event.preventDefault();
    // The server's rules, checked first: refuse control and direction characters, drop invisible ones.
    const refusal = chatProblem(text);
    setProblem(refusal);
    const message = stripInvisible(text).trim();
    if (refusal || !message) return;
    setText('');
    const command = parseChatCommand(message);
    if (command) {
      void getModeration()
        ?.runCommand(command)
        .then((problem) => setProblem(problem));
      return;
    }
    getGameServices()
      ?.sendChat(message, sender)
      .catch((error: unknown) => console.error('Failed to send chat message', error));
  };
  const keepKeysHere = (event: KeyboardEvent) => event.stopPropagation();
  return (
    <form className="chat-form" onSubmit={send}>
      <input
        className="pixel-input chat-input"
        placeholder="Type your message..."
        maxLength={CHAT_MAX_LENGTH}
        autoComplete="off"
        value={text}
        onChange={(event) => {
          setText(event.target.value);
          setProblem(null);
        }}
        onKeyDown={keepKeysHere}
        onKeyUp={keepKeysHere}
      />
      <button type="submit" className="pixel-button pixel-button--small pixel-button--go">
        Send
      </button>
      {problem ? (
        <p className="chat-problem" role="alert">
          {problem}
        </p>
      ) : null}
    </form>
  );
}

/** The live chat panel: online count, the scrolling messages and the input. 20rem wide. */
export function ChatPanel({ walletAddress, playerName }: SocialPanelProps) {
  return (
    <section className="pixel-panel side-panel chat-panel" aria-label="Live chat" data-wallet={walletAddress} data-player={playerName}>
      <ChatHeader />
      <ChatMessages walletAddress={walletAddress} />
      <MutedList />
      <ChatInput sender={{ playerId: walletAddress, playerName }} />
    </section>
  );
}
