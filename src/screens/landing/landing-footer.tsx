/** The footer badges and the version label. */
export function LandingFooter() {
  return (
    <footer className="landing-footer">
      <ul className="badges">
        <li className="badge">WALLET REQUIRED</li>
        <li className="badge">WALLET = ID</li>
        <li className="badge">MULTIPLAYER</li>
      </ul>
      <p className="version">v1.0.0</p>
    </footer>
  );
}
