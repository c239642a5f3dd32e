import { useCallback, useEffect, useState } from 'react';
import { api, whenUnauthorized } from './api.js';
import { live } from './live/events.js';
import { observeServerTime } from './live/server-clock.js';
import { PlanPage, PlansPage } from './pages/plans/index.js';
import { ProfilePage, ProfilesPage } from './pages/profiles/index.js';
import { RoutePage, RoutesPage } from './pages/routes/index.js';
import { SessionPage, SessionsPage } from './pages/sessions/index.js';
import { SignIn } from './pages/sign-in.js';
import { returnAddress, signInAddress } from './return-address.js';
import { Link, navigate, useLocation, type Location } from './router.js';
import { MeContext, type Me } from './session.js';
import { AnnouncerProvider } from './ui/announcer.js';
import { applyTheme, storedTheme, type ThemeChoice } from './ui/theme.js';

/** `ended`: the service refused a page that was signed in (the cookie expired, its token was revoked). */
type SignedIn =
  | { readonly state: 'loading' }
  | { readonly state: 'out'; readonly ended: boolean }
  | { readonly state: 'in'; me: Me };

const sections = [
  { href: '/routes', label: 'Routes' },
  { href: '/sessions', label: 'Sessions' },
  { href: '/profiles', label: 'Profiles' },
  { href: '/plans', label: 'Plans' },
] as const;

export function App() {
  const [signedIn, setSignedIn] = useState<SignedIn>({ state: 'loading' });
  const location = useLocation();

  const loadMe = useCallback(async () => {
    try {
      const { body } = await api<Me>('GET', '/v1/me');
      observeServerTime(body.server_time);
      setSignedIn({ state: 'in', me: body });
      live.start();
    } catch {
      live.stop();
      setSignedIn((s) => (s.state === 'out' ? s : { state: 'out', ended: false }));
    }
  }, []);

  useEffect(() => {
    whenUnauthorized(() => {
      live.stop();
      setSignedIn((s) => ({ state: 'out', ended: s.state === 'in' }));
    });
    void loadMe();
  }, [loadMe]);

  useEffect(() => {
    if (signedIn.state === 'in' && (location.path === '/' || location.path === '/sign-in'))
      navigate(returnAddress(location.search, window.location.origin), { replace: true });
    // The page being left is kept as `next`: signing in again goes back to it, not to the board.
    if (signedIn.state === 'out' && location.path !== '/sign-in')
      navigate(signInAddress(location.path, window.location.search), { replace: true });
  }, [signedIn.state, location.path, location.search]);

  if (signedIn.state === 'loading') return <p className="loading">Loading…</p>;
  if (signedIn.state === 'out')
    return (
      <AnnouncerProvider>
        <SignIn ended={signedIn.ended} onSignedIn={() => void loadMe()} />
      </AnnouncerProvider>
    );
  return (
    <MeContext.Provider value={signedIn.me}>
      <AnnouncerProvider>
        <Shell
          me={signedIn.me}
          location={location}
          onSignOut={() => {
            void api('POST', '/v1/sign-out')
              .catch(() => undefined)
              .then(() => {
                live.stop();
                setSignedIn({ state: 'out', ended: false });
              });
          }}
        />
      </AnnouncerProvider>
    </MeContext.Provider>
  );
}

function Shell(props: { readonly me: Me; readonly location: Location; readonly onSignOut: () => void }) {
  const [theme, setTheme] = useState<ThemeChoice>(storedTheme);
  const [connection, setConnection] = useState<'connecting' | 'live' | 'lost'>(
    live.connected ? 'live' : 'connecting',
  );
  useEffect(() => {
    const off = live.onConnection((connected) => setConnection(connected ? 'live' : 'lost'));
    // The stream may have opened between the first render and this subscription.
    if (live.connected) setConnection('live');
    return off;
  }, []);
  const nextTheme: ThemeChoice = theme === 'system' ? 'dark' : theme === 'dark' ? 'light' : 'system';
  const section = props.location.segments[0] ?? 'routes';
  return (
    <>
      <a className="skip-link" href="#main">
        Skip to content
      </a>
      <header className="top-bar">
        <span className="brand">Recourse</span>
        <nav aria-label="Sections">
          {sections.map((s) => (
            <Link key={s.href} href={s.href} current={s.href === `/${section}`}>
              {s.label}
            </Link>
          ))}
        </nav>
        <div className="top-bar-end">
          <span className={connection === 'live' ? 'live-dot on' : 'live-dot'} data-testid="connection">
            {connection === 'live' ? 'Live' : connection === 'connecting' ? 'Connecting…' : 'Reconnecting…'}
          </span>
          <span className="role">Signed in as {props.me.role}</span>
          <button
            type="button"
            onClick={() => {
              setTheme(nextTheme);
              applyTheme(nextTheme);
            }}
            aria-label={`Theme: ${theme}. Switch to ${nextTheme}`}
          >
            Theme: {theme}
          </button>
          <button type="button" onClick={props.onSignOut}>
            Sign out
          </button>
        </div>
      </header>
      <main id="main" tabIndex={-1}>
        <Page location={props.location} />
      </main>
    </>
  );
}

function Page(props: { readonly location: Location }) {
  const [section, id] = props.location.segments;
  switch (section) {
    case 'sessions':
      return id === undefined ? <SessionsPage /> : <SessionPage id={id} location={props.location} />;
    case 'profiles':
      return id === undefined ? <ProfilesPage /> : <ProfilePage id={id} />;
    case 'plans':
      return id === undefined ? <PlansPage /> : <PlanPage id={id} />;
    default:
      return id === undefined ? <RoutesPage /> : <RoutePage id={id} />;
  }
}
