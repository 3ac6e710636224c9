// Sign-in with the authorization-code flow and PKCE, as the dashboard will do it: the code verifier and
// state wait in sessionStorage (this tab only, gone with it; never localStorage), the ID token lives in
// memory only, and the code is taken out of the address bar at once.

const PENDING = 'dashboard.pkce';
const $ = (id) => document.getElementById(id);
const config = await (await fetch('/config.json')).json();
const redirectUri = `${location.origin}/`;
let idToken;
let refreshToken;

const base64url = (bytes) =>
  btoa(String.fromCharCode(...bytes))
    .replace(/\+/g, '-')
    .replace(/\//g, '_')
    .replace(/=+$/, '');
const randomText = (size) => base64url(crypto.getRandomValues(new Uint8Array(size)));

async function signIn() {
  const verifier = randomText(32);
  const state = randomText(16);
  const challenge = base64url(new Uint8Array(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(verifier))));
  sessionStorage.setItem(PENDING, JSON.stringify({ verifier, state }));
  const url = new URL(config.authorizeUrl);
  url.search = new URLSearchParams({
    response_type: 'code',
    client_id: config.clientId,
    redirect_uri: redirectUri,
    scope: 'openid email profile',
    state,
    code_challenge: challenge,
    code_challenge_method: 'S256',
  }).toString();
  location.assign(url.href);
}

async function finishSignIn(params) {
  const pending = JSON.parse(sessionStorage.getItem(PENDING) ?? 'null');
  sessionStorage.removeItem(PENDING);
  history.replaceState(null, '', '/');
  if (params.has('error')) throw new Error(`Sign-in refused: ${params.get('error')}`);
  if (!pending || pending.state !== params.get('state')) throw new Error('Sign-in failed: this answer was not for this tab. Sign in again.');
  const response = await fetch(config.tokenUrl, {
    method: 'POST',
    headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({
      grant_type: 'authorization_code',
      client_id: config.clientId,
      code: params.get('code') ?? '',
      redirect_uri: redirectUri,
      code_verifier: pending.verifier,
    }),
  });
  const tokens = await response.json();
  if (!response.ok) throw new Error(`Sign-in failed: ${tokens.error ?? response.status}`);
  idToken = tokens.id_token;
  refreshToken = tokens.refresh_token;
}

// Signing out ends the pool's session too (its /logout), and revokes the refresh token, as the dashboard does.
async function signOut() {
  const token = refreshToken;
  idToken = undefined;
  refreshToken = undefined;
  if (token) {
    await fetch(config.revokeUrl, {
      method: 'POST',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ token, client_id: config.clientId }),
    }).catch(() => undefined);
  }
  const url = new URL(config.logoutUrl);
  url.search = new URLSearchParams({ client_id: config.clientId, logout_uri: redirectUri }).toString();
  location.assign(url.href);
}

async function showMe() {
  const response = await fetch('/api/me', { headers: { Authorization: `Bearer ${idToken}` } });
  $('me-answer').textContent = `${response.status}\n${JSON.stringify(await response.json().catch(() => null), null, 2)}`;
  $('me').hidden = false;
}

function show(signedIn, message) {
  $('status').textContent = message;
  $('sign-in').hidden = signedIn;
  $('sign-out').hidden = !signedIn;
  if (!signedIn) $('me').hidden = true;
}

$('sign-in').addEventListener('click', () => {
  signIn().catch((error) => show(false, error.message));
});
$('sign-out').addEventListener('click', () => {
  show(false, 'Signing out...');
  signOut().catch((error) => show(false, error.message));
});

const params = new URLSearchParams(location.search);
try {
  if (params.has('code') || params.has('error')) {
    await finishSignIn(params);
    show(true, 'Signed in.');
    await showMe();
  } else {
    show(false, 'Not signed in.');
  }
} catch (error) {
  show(false, error.message);
}
