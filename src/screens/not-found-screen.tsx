import { useEffect } from 'react';
import { Link, useLocation } from 'react-router';

/** Any unknown path: 404, 'Oops! Page not found' and a link back to `/`; the visit is logged. */
export function NotFoundScreen() {
  const { pathname } = useLocation();
  useEffect(() => {
    console.error('404 Error: User attempted to access non-existent route:', pathname);
  }, [pathname]);
  return (
    <main className="message-screen">
      <div className="pixel-panel message-card">
        <h1 className="big-number">404</h1>
        <p>Oops! Page not found</p>
        <Link className="pixel-button" to="/">
          Return to Home
        </Link>
      </div>
    </main>
  );
}
