// The playground calls the API exactly as a browser app would: from its own origin, with the key in
// the Authorization header. Everything the API returns is written with textContent, never as HTML.
import { apiUrl } from './config.js';

const KEY_STORAGE_NAME = 'prompt-playground.api-key';
const PLACEHOLDER = /\$\{([^}]+)\}/g;

const byId = (id) => document.getElementById(id);
const elements = {
  apiUrl: byId('api-url'),
  keyForm: byId('key-form'),
  key: byId('api-key'),
  forgetKey: byId('forget-key'),
  quotaRemaining: byId('quota-remaining'),
  quotaLimit: byId('quota-limit'),
  quotaReset: byId('quota-reset'),
  lastCall: byId('last-call'),
  message: byId('message'),
  promptList: byId('prompt-list'),
  prompt: byId('prompt'),
  promptName: byId('prompt-name'),
  promptId: byId('prompt-id'),
  versionSelect: byId('version-select'),
  cacheStatus: byId('cache-status'),
  labelForm: byId('label-form'),
  labelInput: byId('label-input'),
  labelStatus: byId('label-status'),
  systemMessage: byId('system-message'),
  userMessage: byId('user-message'),
  variables: byId('variables'),
  noVariables: byId('no-variables'),
  filledMessage: byId('filled-message'),
  config: byId('config'),
};

/** What the page holds between calls; the key itself lives only in the input and sessionStorage. */
const state = {
  /** URL -> { etag, body } of prompt responses, so a re-fetch can ask "changed since?" with If-None-Match. */
  validators: new Map(),
  /** The published versions of the open prompt, from the list. */
  versions: [],
  /** Template variable values, kept by name while switching versions. */
  values: new Map(),
  /** Calls made so far, numbered in the "last call" line. */
  calls: 0,
  /** Only the answer to the newest prompt request may be shown. */
  latestPromptRequest: 0,
  shown: undefined,
};

// ---- calling the API ------------------------------------------------------------------------

async function readJson(response) {
  try {
    return await response.json();
  } catch {
    return undefined;
  }
}

/**
 * One GET to the API. Resolves to { body, notModified } on 2xx/304, or undefined after showing why not.
 * A prompt seen before is asked for with If-None-Match, and a 304 reuses the body kept from then.
 */
async function callApi(pathWithQuery) {
  const key = elements.key.value.trim();
  if (!key) {
    showMessage('Enter an API key first.');
    return undefined;
  }
  const call = ++state.calls;
  const url = `${apiUrl}${pathWithQuery}`;
  const kept = state.validators.get(url);
  const headers = { Authorization: `Bearer ${key}` };
  if (kept) headers['If-None-Match'] = kept.etag;

  let response;
  try {
    // no-store: every call reaches the API, so the quota shown is always the API's latest word.
    response = await fetch(url, { headers, cache: 'no-store', credentials: 'omit' });
  } catch {
    showMessage(`Could not reach the API at ${apiUrl} (it is down, or it refused this origin).`);
    showLastCall(call, pathWithQuery, 'no answer');
    return undefined;
  }
  showQuota(response.headers);
  const result = await readResult(response, url, kept);
  showLastCall(call, pathWithQuery, response.status === 304 ? '304 not modified' : String(response.status));
  return result;
}

async function readResult(response, url, kept) {
  if (response.status === 304 && kept) {
    clearMessage();
    return { body: kept.body, notModified: true };
  }
  const body = await readJson(response);
  if (!response.ok) {
    showError(response.status, body);
    return undefined;
  }
  clearMessage();
  const etag = response.headers.get('ETag');
  if (etag) state.validators.set(url, { etag, body });
  return { body, notModified: false };
}

// ---- quota and messages ---------------------------------------------------------------------

function showQuota(headers) {
  const remaining = headers.get('X-RateLimit-Remaining');
  const limit = headers.get('X-RateLimit-Limit');
  const reset = Number(headers.get('X-RateLimit-Reset'));
  elements.quotaRemaining.textContent = remaining ?? '–';
  elements.quotaLimit.textContent = limit ?? '–';
  if (Number.isInteger(reset) && reset > 0) {
    const at = new Date(reset * 1000).toISOString();
    elements.quotaReset.dateTime = at;
    elements.quotaReset.textContent = `${at.slice(0, 16).replace('T', ' ')} UTC`;
  } else {
    elements.quotaReset.removeAttribute('datetime');
    elements.quotaReset.textContent = '–';
  }
}

function showLastCall(call, pathWithQuery, outcome) {
  elements.lastCall.textContent = `Call ${call}: GET ${pathWithQuery} → ${outcome}`;
}

function clearMessage() {
  elements.message.hidden = true;
  elements.message.replaceChildren();
}

function showMessage(text, link) {
  const paragraph = document.createElement('p');
  paragraph.textContent = text;
  elements.message.replaceChildren(paragraph);
  if (link) {
    const anchor = document.createElement('a');
    anchor.id = 'upgrade-link';
    anchor.href = link;
    anchor.rel = 'noopener noreferrer';
    anchor.target = '_blank';
    anchor.textContent = 'Upgrade your plan';
    elements.message.append(anchor);
  }
  elements.message.hidden = false;
}

/** Only http(s) links are ever rendered, whatever the API says. */
function httpUrl(value) {
  if (typeof value !== 'string') return undefined;
  try {
    const url = new URL(value);
    return url.protocol === 'https:' || url.protocol === 'http:' ? url.href : undefined;
  } catch {
    return undefined;
  }
}

function showError(status, body) {
  const text = typeof body?.error === 'string' ? body.error : `The API answered ${status}.`;
  if (status === 401) {
    showMessage(`The API key is not valid (${text}).`);
  } else if (status === 429) {
    const used = body?.usage ? ` Used ${body.usage.used} of ${body.usage.limit} this month.` : '';
    showMessage(`${text}${used}`, httpUrl(body?.upgradeUrl));
  } else {
    showMessage(text);
  }
}

// ---- prompts --------------------------------------------------------------------------------

async function listPrompts() {
  const result = await callApi('/prompts?include_versions=true');
  if (!result) return;
  const prompts = Array.isArray(result.body) ? result.body : [];
  const items = prompts.map((prompt) => {
    const button = document.createElement('button');
    button.type = 'button';
    button.className = 'prompt-link';
    button.dataset.promptId = prompt.promptId;
    const name = document.createElement('strong');
    name.textContent = prompt.promptName;
    const detail = document.createElement('span');
    detail.textContent = ` ${prompt.promptId} · latest ${prompt.version}`;
    button.append(name, detail);
    const versions = (prompt.publishedVersions ?? []).map((published) => published.version);
    button.addEventListener('click', () => openPrompt(prompt.promptId, versions));
    const item = document.createElement('li');
    item.append(button);
    return item;
  });
  if (items.length === 0) {
    const empty = document.createElement('li');
    empty.textContent = "This key's account has no published prompts.";
    items.push(empty);
  }
  elements.promptList.replaceChildren(...items);
}

async function openPrompt(promptId, versions) {
  state.versions = versions;
  elements.labelInput.value = '';
  await fetchPrompt(`/prompts/${encodeURIComponent(promptId)}`);
}

/** `label` is the label the prompt is asked for at, if any: the page says where it points. */
async function fetchPrompt(pathWithQuery, label) {
  const request = ++state.latestPromptRequest;
  const result = await callApi(pathWithQuery);
  if (request !== state.latestPromptRequest) return;
  if (!result) {
    // The open prompt stays as it was; the selector goes back to what is shown.
    if (state.shown) elements.versionSelect.value = state.shown.version;
    return;
  }
  showPrompt(result.body, result.notModified);
  elements.labelStatus.textContent = label ? `${label} points at ${result.body.version}` : '';
}

function showPrompt(prompt, notModified) {
  state.shown = prompt;
  elements.promptName.textContent = prompt.promptName;
  elements.promptId.textContent = prompt.promptId;
  elements.systemMessage.textContent = prompt.systemMessage;
  elements.userMessage.textContent = prompt.userMessage;
  elements.config.textContent = JSON.stringify(prompt.config, null, 2);
  elements.cacheStatus.textContent = notModified ? 'not modified (304): shown from the copy this page kept' : 'fetched (200)';

  const versions = state.versions.includes(prompt.version) ? state.versions : [...state.versions, prompt.version];
  elements.versionSelect.replaceChildren(
    ...versions.map((version) => {
      const option = document.createElement('option');
      option.value = version;
      option.textContent = version;
      return option;
    }),
  );
  elements.versionSelect.value = prompt.version;

  showVariables(prompt.userMessage);
  elements.prompt.hidden = false;
}

function chooseVersion() {
  const prompt = state.shown;
  const version = elements.versionSelect.value;
  if (!prompt || !version) return;
  elements.labelInput.value = '';
  fetchPrompt(`/prompts/${encodeURIComponent(prompt.promptId)}?version=${encodeURIComponent(version)}`);
}

/** The open prompt at a label (`production`, `staging`, ...): the version the label points at now. */
function chooseLabel() {
  const prompt = state.shown;
  const label = elements.labelInput.value.trim();
  if (!prompt || !label) return;
  elements.labelStatus.textContent = '';
  fetchPrompt(`/prompts/${encodeURIComponent(prompt.promptId)}?label=${encodeURIComponent(label)}`, label);
}

// ---- template variables (the service never substitutes them; the caller does) ---------------

function placeholderNames(template) {
  return [...new Set(Array.from(template.matchAll(PLACEHOLDER), (match) => match[1]))];
}

function showVariables(template) {
  const names = placeholderNames(template);
  const fields = names.map((name, index) => {
    const id = `variable-${index}`;
    const label = document.createElement('label');
    label.htmlFor = id;
    label.textContent = name;
    const input = document.createElement('input');
    input.id = id;
    input.type = 'text';
    input.dataset.variable = name;
    input.value = state.values.get(name) ?? '';
    input.addEventListener('input', () => {
      state.values.set(name, input.value);
      showFilledIn(template);
    });
    const row = document.createElement('div');
    row.className = 'variable';
    row.append(label, input);
    return row;
  });
  elements.variables.replaceChildren(...fields);
  elements.noVariables.hidden = names.length > 0;
  showFilledIn(template);
}

/** The template with every filled-in variable replaced; unfilled placeholders stay, marked. */
function showFilledIn(template) {
  const parts = [];
  let last = 0;
  for (const match of template.matchAll(PLACEHOLDER)) {
    parts.push(document.createTextNode(template.slice(last, match.index)));
    const value = state.values.get(match[1]);
    if (value) {
      parts.push(document.createTextNode(value));
    } else {
      const unfilled = document.createElement('mark');
      unfilled.textContent = match[0];
      parts.push(unfilled);
    }
    last = match.index + match[0].length;
  }
  parts.push(document.createTextNode(template.slice(last)));
  elements.filledMessage.replaceChildren(...parts);
}

// ---- the key --------------------------------------------------------------------------------

function keyChanged() {
  // Responses belong to the key that asked for them (the API varies on Authorization).
  state.validators.clear();
  const key = elements.key.value.trim();
  if (key) sessionStorage.setItem(KEY_STORAGE_NAME, key);
  else sessionStorage.removeItem(KEY_STORAGE_NAME);
}

function forgetKey() {
  elements.key.value = '';
  keyChanged();
  elements.key.focus();
}

// ---- start ----------------------------------------------------------------------------------

elements.apiUrl.textContent = apiUrl;
elements.key.value = sessionStorage.getItem(KEY_STORAGE_NAME) ?? '';
elements.key.addEventListener('input', keyChanged);
elements.forgetKey.addEventListener('click', forgetKey);
elements.keyForm.addEventListener('submit', (event) => {
  event.preventDefault();
  listPrompts();
});
elements.versionSelect.addEventListener('change', chooseVersion);
elements.labelForm.addEventListener('submit', (event) => {
  event.preventDefault();
  chooseLabel();
});
elements.variables.addEventListener('submit', (event) => event.preventDefault());
document.body.dataset.ready = 'true';
