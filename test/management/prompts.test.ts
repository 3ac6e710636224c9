import { hashApiKey } from '../../lambda/domain/api-key';
import { DynamoStore } from '../../lambda/read-api/store/dynamo-store';
import { prompt, version } from '../support/fixtures';
import { ManagementHarness, type Person } from '../support/management-harness';

/** docs/management-api.md, "The management API": prompts, drafts with ETags, publishing, labels, delete and restore. */
const api = new ManagementHarness();
let editor: Person;
let editor2: Person;
let viewer: Person;
let admin: Person;

const content = (systemMessage = 'You are kind.', temperature = 0.5) => ({
  systemMessage,
  userMessage: 'Greet ${name}.',
  config: { model: 'gpt-4o-mini', temperature },
});

beforeAll(async () => {
  await api.start();
  await api.fixtures.account('acme', 'pro');
  await api.fixtures.prompts('acme', prompt('welcome', [version('1.0.0'), version('1.1.0', { published: false })]));
  editor = await api.person('editor@acme.test', 'acme', 'editor');
  editor2 = await api.person('editor2@acme.test', 'acme', 'editor');
  viewer = await api.person('viewer@acme.test', 'acme', 'viewer');
  admin = await api.person('admin@acme.test', 'acme', 'admin');
});
afterAll(() => api.stop());

const P = '/api/accounts/acme/prompts';

async function newDraft(promptId: string, versionNumber = '1.0.0', body = content()) {
  await api.send('POST', P, { as: editor, body: { promptId, promptName: `Prompt ${promptId}` } });
  const response = await api.send('PUT', `${P}/${promptId}/versions/${versionNumber}`, { as: editor, body, headers: { 'If-None-Match': '*' } });
  expect(response.status).toBe(201);
  return response.headers.etag as string;
}

describe('prompts', () => {
  test('create: 201; the same id again, deleted or not: 409', async () => {
    const created = await api.send('POST', P, { as: editor, body: { promptId: 'greet', promptName: 'Greeting' } });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      promptId: 'greet',
      promptName: 'Greeting',
      deleted: false,
      latestVersion: null,
      drafts: [],
      updatedBy: 'editor@acme.test',
    });
    expect((await api.send('POST', P, { as: editor, body: { promptId: 'greet', promptName: 'Again' } })).status).toBe(409);
    expect((await api.send('POST', P, { as: editor, body: { promptId: 'welcome', promptName: 'Again' } })).status).toBe(409);
  });

  test('a bad id is 400 naming promptId, with the seed file rule', async () => {
    const response = await api.send('POST', P, { as: editor, body: { promptId: 'no spaces', promptName: 'x' } });
    expect(response.status).toBe(400);
    expect(response.body).toEqual({ error: 'promptId: must be 1 to 128 characters of A-Z a-z 0-9 _ . -', code: 'BAD_REQUEST', field: 'promptId' });
  });

  test('the list has drafts-only and deleted prompts, latest, labels and drafts', async () => {
    await newDraft('drafty');
    const response = await api.send('GET', P, { as: viewer });
    expect(response.status).toBe(200);
    const prompts = (response.body as { prompts: { promptId: string }[] }).prompts;
    expect(prompts.find((p) => p.promptId === 'welcome')).toMatchObject({ latestVersion: '1.0.0', drafts: ['1.1.0'], labels: {}, deleted: false });
    expect(prompts.find((p) => p.promptId === 'drafty')).toMatchObject({ latestVersion: null, drafts: ['1.0.0'] });
  });

  test('one prompt: every version with who published it, when and the note', async () => {
    const response = await api.send('GET', `${P}/welcome`, { as: viewer });
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({
      promptId: 'welcome',
      versions: [
        { version: '1.0.0', published: true },
        { version: '1.1.0', published: false, publishedAt: null },
      ],
    });
    expect((await api.send('GET', `${P}/nope`, { as: viewer })).status).toBe(404);
  });

  test('a viewer cannot create a prompt or a draft: 403', async () => {
    expect((await api.send('POST', P, { as: viewer, body: { promptId: 'x', promptName: 'x' } })).status).toBe(403);
    expect((await api.send('PUT', `${P}/welcome/versions/2.0.0`, { as: viewer, body: content(), headers: { 'If-None-Match': '*' } })).status).toBe(403);
  });
});

describe('drafts and ETags', () => {
  test('a version read has a strong ETag; a published one reads the same', async () => {
    const response = await api.send('GET', `${P}/welcome/versions/1.0.0`, { as: viewer });
    expect(response.status).toBe(200);
    expect(response.headers.etag).toMatch(/^"[0-9a-f]{32}"$/);
    expect(response.body).toMatchObject({ version: '1.0.0', published: true, systemMessage: 'System message of 1.0.0', etag: response.headers.etag });
  });

  test('replacing needs If-Match: missing 428, stale 412, current 200 with a new ETag', async () => {
    const etag = await newDraft('edit-me');
    const path = `${P}/edit-me/versions/1.0.0`;
    expect((await api.send('PUT', path, { as: editor, body: content('v2') })).status).toBe(428);
    expect((await api.send('PUT', path, { as: editor, body: content('v2'), headers: { 'If-Match': '"0000"' } })).status).toBe(412);
    const saved = await api.send('PUT', path, { as: editor, body: content('v2'), headers: { 'If-Match': etag } });
    expect(saved.status).toBe(200);
    expect(saved.headers.etag).not.toBe(etag);
    expect((await api.send('GET', path, { as: viewer })).body).toMatchObject({ systemMessage: 'v2' });
  });

  test('creating over an existing draft (If-None-Match: *): 412', async () => {
    await newDraft('exists');
    const again = await api.send('PUT', `${P}/exists/versions/1.0.0`, { as: editor, body: content(), headers: { 'If-None-Match': '*' } });
    expect(again.status).toBe(412);
  });

  test('two people save the same draft: the second gets 412 with who saved, and both texts survive', async () => {
    const etag = await newDraft('shared');
    const path = `${P}/shared/versions/1.0.0`;
    const [first, second] = await Promise.all([
      api.send('PUT', path, { as: editor, body: content('Ada’s text'), headers: { 'If-Match': etag } }),
      api.send('PUT', path, { as: editor2, body: content('Bob’s text'), headers: { 'If-Match': etag } }),
    ]);
    const statuses = [first.status, second.status].sort();
    expect(statuses).toEqual([200, 412]);
    const [won, lost, lostText] = first.status === 200 ? [first, second, 'Bob’s text'] : [second, first, 'Ada’s text'];
    expect(lost.body).toMatchObject({ code: 'PRECONDITION_FAILED', current: { etag: JSON.parse(won.headers.etag as string) } });
    const stored = await api.send('GET', path, { as: viewer });
    expect(stored.body).toMatchObject({ systemMessage: first.status === 200 ? 'Ada’s text' : 'Bob’s text' });
    // The one who lost keeps their text and saves it on top of the current draft, knowingly.
    const retry = await api.send('PUT', path, { as: editor, body: content(lostText), headers: { 'If-Match': stored.headers.etag as string } });
    expect(retry.status).toBe(200);
  });

  test('a published version is never changed: PUT and DELETE are 409', async () => {
    const read = await api.send('GET', `${P}/welcome/versions/1.0.0`, { as: viewer });
    const put = await api.send('PUT', `${P}/welcome/versions/1.0.0`, {
      as: editor,
      body: content('changed'),
      headers: { 'If-Match': read.headers.etag as string },
    });
    expect(put.status).toBe(409);
    expect((await api.send('PUT', `${P}/welcome/versions/1.0.0`, { as: editor, body: content(), headers: { 'If-None-Match': '*' } })).status).toBe(409);
    expect((await api.send('DELETE', `${P}/welcome/versions/1.0.0`, { as: editor, headers: { 'If-Match': read.headers.etag as string } })).status).toBe(409);
    expect((await api.send('GET', `${P}/welcome/versions/1.0.0`, { as: viewer })).body).toMatchObject({ systemMessage: 'System message of 1.0.0' });
  });

  test('delete a draft: If-Match required (428), then 204 and gone', async () => {
    const etag = await newDraft('to-delete');
    const path = `${P}/to-delete/versions/1.0.0`;
    expect((await api.send('DELETE', path, { as: editor })).status).toBe(428);
    expect((await api.send('DELETE', path, { as: editor, headers: { 'If-Match': etag } })).status).toBe(204);
    expect((await api.send('GET', path, { as: viewer })).status).toBe(404);
  });

  test('content over 300 KB: 413, nothing stored', async () => {
    await api.send('POST', P, { as: editor, body: { promptId: 'big', promptName: 'Big' } });
    const response = await api.send('PUT', `${P}/big/versions/1.0.0`, {
      as: editor,
      body: content('x'.repeat(301 * 1024)),
      headers: { 'If-None-Match': '*' },
    });
    expect(response.status).toBe(413);
    expect(response.body).toMatchObject({ code: 'PAYLOAD_TOO_LARGE' });
    expect((await api.send('GET', `${P}/big/versions/1.0.0`, { as: viewer })).status).toBe(404);
  });

  test('the config is checked as the seed file checks it: temperature 3 is 400 naming config.temperature', async () => {
    await api.send('POST', P, { as: editor, body: { promptId: 'hot', promptName: 'Hot' } });
    const response = await api.send('PUT', `${P}/hot/versions/1.0.0`, { as: editor, body: content('x', 3), headers: { 'If-None-Match': '*' } });
    expect(response.status).toBe(400);
    expect(response.body).toMatchObject({ field: 'config.temperature', error: 'config.temperature: must be from 0 to 2' });
  });

  test('a bad version in the path is 400 naming version', async () => {
    const response = await api.send('GET', `${P}/welcome/versions/v1`, { as: viewer });
    expect(response.status).toBe(400);
    expect(response.body).toMatchObject({ field: 'version' });
  });
});

describe('publish', () => {
  test('the draft becomes published and latest; the read API serves it from the next request', async () => {
    const etag = await newDraft('launch', '1.0.0', content('Launched'));
    const published = await api.send('POST', `${P}/launch/versions/1.0.0/publish`, { as: editor, body: { note: 'First cut' }, headers: { 'If-Match': etag } });
    expect(published.status).toBe(200);
    expect(published.body).toMatchObject({ version: '1.0.0', published: true, note: 'First cut', publishedBy: 'editor@acme.test' });
    const detail = await api.send('GET', `${P}/launch`, { as: viewer });
    expect(detail.body).toMatchObject({ latestVersion: '1.0.0', versions: [{ version: '1.0.0', published: true, note: 'First cut' }] });

    const apiKey = await api.fixtures.apiKey('acme');
    const store = new DynamoStore(api.local.clients, api.local.tableName);
    const admission = await store.admit(
      { keyHash: hashApiKey(apiKey), month: '2026-11', day: '23', at: new Date('2026-11-23T00:00:00Z') },
      AbortSignal.timeout(3000),
    );
    expect(admission.admitted).toBe(true);
    const served = await store.findLatestPrompt({ accountId: 'acme', promptsRevision: 0, deadline: AbortSignal.timeout(3000) }, 'launch');
    expect(served).toMatchObject({ found: true, prompt: { version: '1.0.0', systemMessage: 'Launched' } });
  });

  test("a publish raises the account's prompt revision on its keys: functions that remember latest and the lists read again", async () => {
    const apiKey = await api.fixtures.apiKey('acme');
    const store = new DynamoStore(api.local.clients, api.local.tableName);
    const revision = async () => {
      const admission = await store.admit(
        { keyHash: hashApiKey(apiKey), month: '2026-11', day: '23', at: new Date('2026-11-23T00:00:00Z') },
        AbortSignal.timeout(3000),
      );
      return admission.admitted ? admission.key.promptsRevision : undefined;
    };
    const etag = await newDraft('raised', '1.0.0', content('Raised'));
    const before = await revision();
    expect((await api.send('POST', `${P}/raised/versions/1.0.0/publish`, { as: editor, body: { note: 'First' }, headers: { 'If-Match': etag } })).status).toBe(
      200,
    );
    expect(await revision()).toBeGreaterThan(before ?? Number.POSITIVE_INFINITY);
  });

  test('note is required, 1 to 500 characters: 400 naming note', async () => {
    const etag = await newDraft('noted');
    for (const body of [{}, { note: '' }, { note: 'x'.repeat(501) }]) {
      const response = await api.send('POST', `${P}/noted/versions/1.0.0/publish`, { as: editor, body, headers: { 'If-Match': etag } });
      expect(response.status).toBe(400);
      expect(response.body).toMatchObject({ field: 'note' });
    }
  });

  test('publish needs If-Match (428) and the current one (412)', async () => {
    await newDraft('guarded');
    const path = `${P}/guarded/versions/1.0.0/publish`;
    expect((await api.send('POST', path, { as: editor, body: { note: 'n' } })).status).toBe(428);
    expect((await api.send('POST', path, { as: editor, body: { note: 'n' }, headers: { 'If-Match': '"stale"' } })).status).toBe(412);
  });

  test('concurrent publishes of several versions: all land, the highest is latest', async () => {
    const tags: Record<string, string> = {};
    tags['1.0.0'] = await newDraft('race', '1.0.0');
    for (const v of ['1.0.1', '1.2.0', '1.10.0', '1.9.3']) {
      const r = await api.send('PUT', `${P}/race/versions/${v}`, { as: editor, body: content(`v${v}`), headers: { 'If-None-Match': '*' } });
      tags[v] = r.headers.etag as string;
    }
    const results = await Promise.all(
      Object.entries(tags).map(([v, etag]) =>
        api.send('POST', `${P}/race/versions/${v}/publish`, { as: editor, body: { note: `n${v}` }, headers: { 'If-Match': etag } }),
      ),
    );
    expect(results.map((r) => r.status)).toEqual([200, 200, 200, 200, 200]);
    expect((await api.send('GET', `${P}/race`, { as: viewer })).body).toMatchObject({ latestVersion: '1.10.0' });
  });

  test('the same draft published twice at once: one 200, the other 409, published once', async () => {
    const etag = await newDraft('twice');
    const results = await Promise.all(
      [editor, editor2].map((as) => api.send('POST', `${P}/twice/versions/1.0.0/publish`, { as, body: { note: 'go' }, headers: { 'If-Match': etag } })),
    );
    expect(results.map((r) => r.status).sort()).toEqual([200, 409]);
  });

  test('publishing to a deleted prompt: 409', async () => {
    const etag = await newDraft('gone');
    expect((await api.send('POST', `${P}/gone/delete`, { as: admin })).status).toBe(200);
    const response = await api.send('POST', `${P}/gone/versions/1.0.0/publish`, { as: editor, body: { note: 'n' }, headers: { 'If-Match': etag } });
    expect(response.status).toBe(409);
  });
});

describe('labels', () => {
  test('an editor points staging at a published version, moves it, removes it', async () => {
    const path = `${P}/welcome/labels/staging`;
    const set = await api.send('PUT', path, { as: editor, body: { version: '1.0.0' } });
    expect(set).toMatchObject({ status: 200, body: { label: 'staging', version: '1.0.0', previous: null } });
    expect((await api.send('GET', `${P}/welcome`, { as: viewer })).body).toMatchObject({ labels: { staging: '1.0.0' } });
    expect((await api.send('DELETE', path, { as: editor })).status).toBe(204);
    expect((await api.send('DELETE', path, { as: editor })).status).toBe(404);
  });

  test('a draft or a missing version cannot be labelled: 409, 404', async () => {
    expect((await api.send('PUT', `${P}/welcome/labels/beta`, { as: editor, body: { version: '1.1.0' } })).status).toBe(409);
    expect((await api.send('PUT', `${P}/welcome/labels/beta`, { as: editor, body: { version: '9.9.9' } })).status).toBe(404);
  });

  test('production is protected: an editor is refused (403), an admin moves it', async () => {
    const path = `${P}/welcome/labels/production`;
    expect((await api.send('PUT', path, { as: editor, body: { version: '1.0.0' } })).status).toBe(403);
    expect((await api.send('PUT', path, { as: admin, body: { version: '1.0.0' } })).status).toBe(200);
    expect((await api.send('DELETE', path, { as: editor })).status).toBe(403);
    expect((await api.send('DELETE', path, { as: admin })).status).toBe(204);
  });
});

describe('delete and restore', () => {
  test('admins delete and restore; editors may not (403)', async () => {
    await api.send('POST', P, { as: editor, body: { promptId: 'hideable', promptName: 'H' } });
    expect((await api.send('POST', `${P}/hideable/delete`, { as: editor })).status).toBe(403);
    expect((await api.send('POST', `${P}/hideable/delete`, { as: admin })).body).toEqual({ promptId: 'hideable', deleted: true });
    expect((await api.send('GET', `${P}/hideable`, { as: viewer })).body).toMatchObject({ deleted: true });
    expect((await api.send('POST', `${P}/hideable/restore`, { as: admin })).body).toEqual({ promptId: 'hideable', deleted: false });
    expect((await api.send('POST', `${P}/nope/delete`, { as: admin })).status).toBe(404);
  });
});
