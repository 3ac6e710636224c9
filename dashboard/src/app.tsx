import type { ComponentChildren } from 'preact';
import { useCallback, useEffect, useMemo, useState } from 'preact/hooks';
import { createApi } from './api/client';
import type { AccountSettings, Me } from './api/types';
import { currentSession, type Session, signOut, startSignIn } from './auth/session';
import { mayLeave } from './components/leave-guard';
import { ErrorNote, Loading } from './components/ui';
import { useLoad } from './components/hooks';
import type { SignInConfig } from './auth/pkce';
import { changeRequestsNavName } from './features/change-requests/change-requests';
import { type Action, denial, ROLE_SUMMARY } from './logic/roles';
import { hrefOf, parseRoute, type Route, type Section, sectionOf } from './logic/route';
import { AuditPage } from './features/audit/audit-page';
import { ComparePage } from './features/versions/compare-page';
import { KeysPage } from './features/keys/keys-page';
import { MembersPage } from './features/members/members-page';
import { PlaygroundPage } from './features/playground/playground-page';
import { PromptPage } from './features/prompts/prompt-page';
import { PromptsPage } from './features/prompts/prompts-page';
import { ChangeRequestPage } from './features/change-requests/change-request-page';
import { ChangeRequestsPage } from './features/change-requests/change-requests-page';
import { SettingsPage } from './features/settings/settings-page';
import { UsagePage } from './features/usage/usage-page';
import { VersionPage } from './features/versions/version-page';
import { WebhooksPage } from './features/webhooks/webhooks-page';
import { type Workspace, WorkspaceContext } from './workspace';

function useRoute(): [Route, (route: Route) => void] {
  const [route, setRoute] = useState(() => parseRoute(location.hash));
  useEffect(() => {
    let shown = location.hash;
    const follow = (event: HashChangeEvent) => {
      // A link followed with unsaved changes on the page: asked first, and put back if the person stays.
      if (location.hash !== shown && !mayLeave()) {
        history.replaceState(history.state, '', new URL(event.oldURL).hash || '#/');
        return;
      }
      shown = location.hash;
      setRoute(parseRoute(location.hash));
    };
    window.addEventListener('hashchange', follow);
    return () => window.removeEventListener('hashchange', follow);
  }, []);
  const navigate = useCallback((next: Route) => {
    location.hash = hrefOf(next).slice(1);
  }, []);
  return [route, navigate];
}

export function App({ config, signInProblem }: { config: SignInConfig; signInProblem: string | undefined }) {
  const [session, setSession] = useState<Session | undefined>(() => currentSession());
  const [expired, setExpired] = useState(false);
  // Until the pool's sign-out page takes over: a sign-in started before it would find the pool's session still
  // open and come back as the person who is leaving, without a password.
  const [signingOut, setSigningOut] = useState(false);
  const onExpired = useCallback(() => setExpired(true), []);
  const signIn = () => startSignIn(config, location.hash);
  if (signingOut) {
    return (
      <main class="sign-in">
        <p role="status">Signing out…</p>
      </main>
    );
  }
  if (!session) return <SignInScreen problem={signInProblem} onSignIn={signIn} />;
  return (
    <SignedIn
      config={config}
      session={session}
      expired={expired}
      onExpired={onExpired}
      onSignIn={signIn}
      onSignOut={() => {
        setSigningOut(true);
        setSession(undefined);
        void signOut(config);
      }}
    />
  );
}

function SignInScreen({ problem, onSignIn }: { problem: string | undefined; onSignIn(): void }) {
  useEffect(() => {
    document.title = 'Sign in · Prompt dashboard';
  }, []);
  return (
    <main class="sign-in" id="main">
      <h1>Prompt dashboard</h1>
      <p>Author, publish and label prompts, manage API keys and people, and watch usage.</p>
      {problem ? (
        <p class="error" role="alert">
          {problem}
        </p>
      ) : null}
      <button type="button" class="button primary" onClick={onSignIn}>
        Sign in
      </button>
    </main>
  );
}

/** The navigation; a section with `needs` is shown only to the roles that may do it (its page says why to others). */
const SECTIONS: readonly { section: Section; text: string; needs?: Action }[] = [
  { section: 'prompts', text: 'Prompts' },
  { section: 'change-requests', text: 'Requests' },
  { section: 'keys', text: 'API keys' },
  { section: 'webhooks', text: 'Webhooks', needs: 'manage webhooks' },
  { section: 'usage', text: 'Usage' },
  { section: 'members', text: 'Members' },
  { section: 'audit', text: 'Audit log' },
  { section: 'settings', text: 'Settings' },
];

function SignedIn(props: { config: SignInConfig; session: Session; expired: boolean; onExpired(): void; onSignIn(): void; onSignOut(): void }) {
  const { config, session, onExpired } = props;
  const api = useMemo(() => createApi({ token: () => currentSession()?.idToken ?? session.idToken, onUnauthorized: onExpired }), [session, onExpired]);
  const [route, navigate] = useRoute();
  const me = useLoad(() => api.me(), [api]);
  const [announcement, setAnnouncement] = useState('');

  // Home: the first account's prompts.
  useEffect(() => {
    const first = me.data?.accounts[0];
    if (route.page === 'home' && first) navigate({ page: 'prompts', accountId: first.accountId });
  }, [route, me.data, navigate]);

  const header = (
    <header class="top">
      <a class="brand" href="#/">
        Prompt dashboard
      </a>
      {me.data ? <AccountSwitcher me={me.data} route={route} navigate={navigate} /> : null}
      <span class="who">
        Signed in as <strong>{me.data?.email ?? session.claims.email}</strong>
      </span>
      <button type="button" class="button plain" onClick={props.onSignOut}>
        Sign out
      </button>
    </header>
  );

  const expiredBanner = props.expired ? (
    <div class="banner" role="alert">
      Your sign-in has expired. Your unsaved text stays in this tab.{' '}
      <button type="button" class="button primary" onClick={props.onSignIn}>
        Sign in again
      </button>
    </div>
  ) : null;

  if (!me.data) {
    return (
      <>
        {header}
        {expiredBanner}
        <main id="main">{me.problem ? <ErrorNote problem={me.problem} doing="Reading your accounts" /> : <Loading what="your accounts" />}</main>
      </>
    );
  }
  const accountId = route.page === 'home' ? undefined : route.accountId;
  const account = me.data.accounts.find((membership) => membership.accountId === accountId);
  if (!account) {
    return (
      <>
        {header}
        {expiredBanner}
        <main id="main">
          <h1>No account here</h1>
          <p>
            {me.data.accounts.length === 0
              ? 'You are not a member of any account yet. Ask an admin of your team to add you.'
              : accountId
                ? `You are not a member of the account ${accountId}. Pick one of yours above.`
                : 'Pick one of your accounts above.'}
          </p>
        </main>
      </>
    );
  }
  return (
    <AccountArea
      key={account.accountId}
      api={api}
      config={config}
      me={me.data}
      route={route}
      navigate={navigate}
      header={header}
      banner={expiredBanner}
      announcement={announcement}
      announce={setAnnouncement}
      membership={account}
    />
  );
}

function AccountSwitcher({ me, route, navigate }: { me: Me; route: Route; navigate(route: Route): void }) {
  const current = route.page === 'home' ? '' : route.accountId;
  return (
    <label class="switcher">
      Account{' '}
      <select
        value={current}
        onChange={(event) => {
          const accountId = (event.currentTarget as HTMLSelectElement).value;
          const section = sectionOf(route) ?? 'prompts';
          navigate({ page: section, accountId } as Route);
        }}
      >
        {current === '' ? <option value="">Choose an account</option> : null}
        {me.accounts.map((membership) => (
          <option key={membership.accountId} value={membership.accountId}>
            {membership.name} ({membership.role})
          </option>
        ))}
      </select>
    </label>
  );
}

function AccountArea(props: {
  api: ReturnType<typeof createApi>;
  config: SignInConfig;
  me: Me;
  route: Route;
  navigate(route: Route): void;
  header: ComponentChildren;
  banner: ComponentChildren;
  announcement: string;
  announce(message: string): void;
  membership: Me['accounts'][number];
}) {
  const { api, membership, route } = props;
  const [settings, setSettings] = useState<AccountSettings | undefined>(undefined);
  const [round, setRound] = useState(0);
  const section = sectionOf(route);
  // Read again on each section change, so a role changed meanwhile shows.
  useEffect(() => {
    let current = true;
    api.account(membership.accountId).then(
      (read) => current && setSettings(read),
      () => undefined,
    );
    return () => {
      current = false;
    };
  }, [api, membership.accountId, section, round]);
  // The open requests, for the navigation's count: read with the settings, and again after a request changed.
  const [openChangeRequests, setOpenChangeRequests] = useState<number | undefined>(undefined);
  useEffect(() => {
    let current = true;
    api.requests(membership.accountId, 'open').then(
      (page) => current && setOpenChangeRequests(page.requests.length),
      () => undefined,
    );
    return () => {
      current = false;
    };
  }, [api, membership.accountId, section, round]);
  const role = settings?.role ?? membership.role;
  const workspace: Workspace = {
    api,
    config: props.config,
    me: props.me,
    account: membership,
    settings,
    role,
    navigate: props.navigate,
    refreshAccount: () => setRound((n) => n + 1),
    announce: props.announce,
  };
  return (
    <WorkspaceContext.Provider value={workspace}>
      <button type="button" class="skip" onClick={() => document.getElementById('main')?.focus()}>
        Skip to content
      </button>
      {props.header}
      <nav class="sections" aria-label="Sections">
        <ul>
          {SECTIONS.filter((item) => item.needs === undefined || denial(role, item.needs) === undefined).map((item) => (
            <li key={item.section}>
              <a
                href={hrefOf({ page: item.section, accountId: membership.accountId } as Route)}
                aria-current={section === item.section ? 'page' : undefined}
                aria-label={item.section === 'change-requests' ? changeRequestsNavName(openChangeRequests) : undefined}
              >
                {item.text}
                {item.section === 'change-requests' && openChangeRequests ? (
                  <>
                    {' '}
                    <span class="count">{openChangeRequests} open</span>
                  </>
                ) : null}
              </a>
            </li>
          ))}
        </ul>
        <p class="role" data-role={role}>
          Your role in {settings?.name ?? membership.name}: <strong>{role}</strong> <span class="muted">({ROLE_SUMMARY[role]})</span>
        </p>
      </nav>
      {props.banner}
      <main id="main" tabIndex={-1}>
        <Page route={route} />
      </main>
      <p class="visually-hidden" role="status" aria-live="polite">
        {props.announcement}
      </p>
    </WorkspaceContext.Provider>
  );
}

function Page({ route }: { route: Route }) {
  switch (route.page) {
    case 'prompts':
      return <PromptsPage />;
    case 'prompt':
      return <PromptPage key={route.promptId} promptId={route.promptId} />;
    case 'playground':
      return <PlaygroundPage key={route.promptId} promptId={route.promptId} />;
    case 'version':
      return <VersionPage key={`${route.promptId}@${route.version}`} promptId={route.promptId} version={route.version} />;
    case 'compare':
      return <ComparePage promptId={route.promptId} from={route.from} to={route.to} />;
    case 'change-requests':
      return <ChangeRequestsPage />;
    case 'change-request':
      return <ChangeRequestPage key={route.requestId} requestId={route.requestId} />;
    case 'settings':
      return <SettingsPage />;
    case 'keys':
      return <KeysPage />;
    case 'webhooks':
      return <WebhooksPage />;
    case 'usage':
      return <UsagePage />;
    case 'members':
      return <MembersPage />;
    case 'audit':
      return <AuditPage />;
    default:
      return null;
  }
}
