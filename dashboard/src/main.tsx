import { render } from 'preact';
import { App } from './app';
import { finishSignIn, loadConfig } from './auth/session';
// Stylesheets only, no inline styles (the Content-Security-Policy allows style-src 'self' alone), built into one
// file: later sheets may override earlier ones, so the cascade follows this order.
import './styles/theme.css';
import './styles/page.css';
import './styles/controls.css';
import './styles/editor.css';
import './styles/features.css';

/** Reads the sign-in settings, finishes a sign-in the page was opened by, then shows the dashboard. */
async function start(root: HTMLElement): Promise<void> {
  const config = await loadConfig();
  const outcome = await finishSignIn(config);
  root.textContent = '';
  render(<App config={config} signInProblem={outcome.kind === 'error' ? outcome.message : undefined} />, root);
}

const root = document.getElementById('app');
if (root) {
  start(root).catch((error: unknown) => {
    root.textContent = '';
    const message = document.createElement('p');
    message.className = 'error';
    message.setAttribute('role', 'alert');
    message.textContent = error instanceof Error ? error.message : 'The dashboard could not start. Reload the page.';
    root.append(message);
  });
}
