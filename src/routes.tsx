import { lazy, Suspense } from 'react';
import { createBrowserRouter } from 'react-router';
import { HomeScreen } from './screens/home-screen.js';
import { NotFoundScreen } from './screens/not-found-screen.js';
import { RouteErrorScreen } from './screens/route-error-screen.js';

/** The operators' console is fetched only when /ops is opened. */
const OpsScreen = lazy(() => import('./ops/ops-screen.js').then((module) => ({ default: module.OpsScreen })));

/** The app's routes (docs/game-rules.md §2): `/` is the landing screen or the game, `/ops` the operators' console (404 for anyone else), anything else is 404. */
export function createAppRouter() {
  return createBrowserRouter([
    {
      errorElement: <RouteErrorScreen />,
      children: [
        { path: '/', element: <HomeScreen /> },
        { path: '/ops', element: <Suspense fallback={null}><OpsScreen /></Suspense> },
        { path: '*', element: <NotFoundScreen /> },
      ],
    },
  ]);
}
