// The offline screen: tries the server every few seconds and as soon as the browser says it is
// back online, then reloads into the game.
const status = document.getElementById('offline-status');
let tries = 0;
let timer = 0;

async function reachable() {
  try {
    const response = await fetch('/config.json', { cache: 'no-store' });
    return response.ok;
  } catch {
    return false;
  }
}

async function attempt() {
  tries++;
  if (status) status.textContent = `Reconnecting${'.'.repeat(1 + (tries % 3))}`;
  if (await reachable()) {
    if (status) status.textContent = 'Back online!';
    location.reload();
    return;
  }
  timer = setTimeout(attempt, 2000);
}

window.addEventListener('online', () => {
  clearTimeout(timer);
  void attempt();
});
timer = setTimeout(attempt, 1000);
