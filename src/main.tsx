import { Provider } from 'jotai';
import { createRoot } from 'react-dom/client';
import { RouterProvider } from 'react-router';
import { registerServiceWorker } from './pwa/register.js';
import { createAppRouter } from './routes.js';
import { exposeState } from './state/debug.js';
import { store } from './state/store.js';
import { startWallet } from './wallet/session.js';

exposeState();
startWallet();
registerServiceWorker();
createRoot(document.getElementById('root')!).render(
  <Provider store={store}>
    <RouterProvider router={createAppRouter()} />
  </Provider>,
);
