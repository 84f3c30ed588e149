import { isRouteErrorResponse, useRouteError } from 'react-router';

function describe(error: unknown): string {
  if (isRouteErrorResponse(error)) return `${error.status} ${error.statusText}`;
  if (error instanceof Error) return error.message;
  return String(error);
}

/** Shown when a route throws while rendering. */
export function RouteErrorScreen() {
  const error = useRouteError();
  return (
    <main className="message-screen">
      <div className="pixel-panel message-card">
        <h1 className="error-title">Unexpected Application Error!</h1>
        <p className="error-detail">{describe(error)}</p>
        <a className="pixel-button" href="/">
          Return to Home
        </a>
      </div>
    </main>
  );
}
