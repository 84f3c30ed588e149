/**
 * Registers the service worker (`/sw.js`, written by the build from `pwa/service-worker.js`):
 * it makes the game installable, keeps the built files for the next visit and answers with the
 * offline screen when the network is gone. Not where there is no service worker support (or
 * no secure context).
 */
export function registerServiceWorker(): void {
  if (!('serviceWorker' in navigator) || !window.isSecureContext) return;
  const register = () => {
    navigator.serviceWorker.register('/sw.js', { scope: '/' }).catch((error: unknown) => console.warn('service worker not registered', error));
  };
  if (document.readyState === 'complete') register();
  else window.addEventListener('load', register, { once: true });
}
