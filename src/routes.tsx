import { createBrowserRouter } from 'react-router';
import { HomeScreen } from './screens/home-screen.js';
import { NotFoundScreen } from './screens/not-found-screen.js';
import { RouteErrorScreen } from './screens/route-error-screen.js';

/** The app's routes (docs/game-rules.md §2): `/` is the landing screen or the game, anything else is 404. */
export function createAppRouter() {
  return createBrowserRouter([
    {
      errorElement: <RouteErrorScreen />,
      children: [
        { path: '/', element: <HomeScreen /> },
        { path: '*', element: <NotFoundScreen /> },
      ],
    },
  ]);
}
