import {
  boundedResolve,
  checkUrl,
  LOOKUP_TIMEOUT_MS,
  LookupTimeoutError,
  type Resolve,
  type ResolvedAddress,
  resolveDestination,
  whyRefused,
} from '../../lambda/webhook-delivery/destination';

/** DNS in these tests: a table of answers, and every name asked for, so a test can say none was. */
function stubResolver(answers: Record<string, readonly string[]>): Resolve & { asked: string[] } {
  const asked: string[] = [];
  const resolve = async (host: string): Promise<ResolvedAddress[]> => {
    asked.push(host);
    const found = answers[host];
    if (!found) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: 'ENOTFOUND' });
    return found.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
  };
  return Object.assign(resolve, { asked });
}

describe('addresses', () => {
  test.each([
    ['127.0.0.1', 'loopback'],
    ['127.255.0.9', 'loopback'],
    ['::1', 'loopback'],
    ['0.0.0.0', 'unspecified'],
    ['::', 'unspecified'],
    ['10.0.0.5', 'private'],
    ['172.16.0.1', 'private'],
    ['172.31.255.255', 'private'],
    ['192.168.1.1', 'private'],
    ['fc00::1', 'private'],
    ['fd12:3456::1', 'private'],
    ['100.64.0.1', 'shared'],
    ['169.254.10.10', 'link-local'],
    ['fe80::1', 'link-local'],
    ['169.254.169.254', 'metadata'],
    ['fd00:ec2::254', 'metadata'],
    ['224.0.0.1', 'multicast'],
    ['ff02::1', 'multicast'],
    ['240.0.0.1', 'reserved'],
    ['255.255.255.255', 'reserved'],
    ['192.0.2.10', 'documentation'],
    ['2001:db8::1', 'documentation'],
    ['::ffff:127.0.0.1', 'loopback'],
    ['::ffff:7f00:1', 'loopback'],
    ['::ffff:169.254.169.254', 'metadata'],
    ['::ffff:10.0.0.5', 'private'],
    ['64:ff9b::10.0.0.5', 'private'],
    ['64:ff9b::a9fe:a9fe', 'metadata'],
    ['::127.0.0.1', 'IPv4-compatible'],
    ['2002:7f00:1::1', '6to4'],
    ['2001:0:4136:e378::1', 'Teredo'],
    ['1::1', 'not a global unicast'],
  ])('%s is refused as %s', (address, why) => {
    expect(whyRefused(address)).toContain(why);
  });

  test.each(['93.184.215.14', '8.8.8.8', '172.32.0.1', '100.128.0.1', '2606:4700:4700::1111', '::ffff:93.184.215.14', '64:ff9b::5db8:d70e'])(
    '%s is public',
    (address) => {
      expect(whyRefused(address)).toBeUndefined();
    },
  );
});

describe('a URL, deployed', () => {
  const resolve = stubResolver({ 'hooks.example.com': ['93.184.215.14', '2606:4700:4700::1111'] });

  test('https to a name whose every address is public is allowed, pinned to the first address, any port', async () => {
    const check = await resolveDestination('https://hooks.example.com:8443/in?x=1', 'deployed', resolve);
    expect(check).toMatchObject({ ok: true, destination: { host: 'hooks.example.com', port: 8443, address: '93.184.215.14', family: 4 } });
  });

  test.each([
    ['http://hooks.example.com/', 'must be https'],
    ['ftp://hooks.example.com/', 'must be https'],
    ['https://user:pass@hooks.example.com/', 'user name or password'],
    ['https://token@hooks.example.com/', 'user name or password'],
    ['hooks.example.com/in', 'not an absolute URL'],
    [`https://hooks.example.com/${'a'.repeat(2100)}`, 'longer than'],
    ['http://127.0.0.1:8080/', 'must be https'],
    ['https://localhost/', 'loopback'],
    ['https://app.localhost/', 'loopback'],
  ])('%s is refused (%s) without any DNS lookup', async (url, reason) => {
    const quiet = stubResolver({});
    const check = await checkUrl(url, 'deployed', quiet);
    expect(check.ok).toBe(false);
    expect(check.ok ? '' : check.reason).toContain(reason);
    expect(quiet.asked).toEqual([]);
  });

  test.each([
    ['https://2130706433/', '127.0.0.1'],
    ['https://0x7f.1/', '127.0.0.1'],
    ['https://017700000001/', '127.0.0.1'],
    ['https://127.1/', '127.0.0.1'],
    ['https://0xa9fea9fe/', '169.254.169.254'],
    ['https://[::ffff:127.0.0.1]/', '::ffff:7f00:1'],
    ['https://[::1]:443/', '::1'],
    ['https://[fd00:ec2::254]/', 'fd00:ec2::254'],
  ])('the literal %s, which the URL standard reads as %s, is refused without DNS', async (url, normalized) => {
    const quiet = stubResolver({});
    const check = await resolveDestination(url, 'deployed', quiet);
    expect(check).toMatchObject({ ok: false, refused: true });
    expect(check.ok ? '' : check.reason).toContain(normalized);
    expect(quiet.asked).toEqual([]);
  });

  test('a public literal address is allowed and used as is', async () => {
    const check = await resolveDestination('https://[2606:4700:4700::1111]/hook', 'deployed', stubResolver({}));
    expect(check).toMatchObject({ ok: true, destination: { host: '2606:4700:4700::1111', address: '2606:4700:4700::1111', family: 6, port: 443 } });
  });

  test.each(['10.0.0.5', '169.254.169.254', '::ffff:127.0.0.1', 'fd00:ec2::254'])(
    'a name with one address among public ones at %s is refused, naming the address',
    async (bad) => {
      const check = await resolveDestination('https://mixed.example.com/', 'deployed', stubResolver({ 'mixed.example.com': ['93.184.215.14', bad] }));
      expect(check).toMatchObject({ ok: false, refused: true });
      expect(check.ok ? '' : check.reason).toContain(bad);
    },
  );

  test('a name that does not resolve is not allowed, but not refused for good: it may resolve later', async () => {
    expect(await resolveDestination('https://nowhere.example.com/', 'deployed', stubResolver({}))).toEqual({
      ok: false,
      reason: 'nowhere.example.com could not be resolved (ENOTFOUND)',
      refused: false,
    });
  });

  test('a lookup that never answers fails after the limit: not refused for good, an attempt retries it', async () => {
    const silent = boundedResolve(() => new Promise(() => {}), 20);
    expect(await resolveDestination('https://slow.example.com/', 'deployed', silent)).toMatchObject({
      ok: false,
      reason: 'slow.example.com could not be resolved within 20 ms',
      refused: false,
    });
  });

  test('checkUrl throws a lookup that timed out (it says nothing of the URL), rather than answering a reason', async () => {
    const silent = boundedResolve(() => new Promise(() => {}), 20);
    await expect(checkUrl('https://slow.example.com/', 'deployed', silent)).rejects.toThrow(LookupTimeoutError);
  });

  test('checkUrl says ok for an allowed URL', async () => {
    expect(await checkUrl('https://hooks.example.com/', 'deployed', resolve)).toEqual({ ok: true });
  });
});

describe('a URL, locally', () => {
  test.each([
    ['http://127.0.0.1:4000/hook', 4000],
    ['http://localhost:4000/hook', 4000],
    ['http://127.0.0.1/hook', 80],
  ])('%s is allowed, pinned to 127.0.0.1 without DNS', async (url, port) => {
    const quiet = stubResolver({});
    const check = await resolveDestination(url, 'local', quiet);
    expect(check).toMatchObject({ ok: true, destination: { address: '127.0.0.1', family: 4, port } });
    expect(quiet.asked).toEqual([]);
  });

  test.each(['http://10.0.0.5:4000/', 'http://192.168.1.1/', 'http://[::1]:4000/', 'http://hooks.example.com/', 'https://localhost:4000/'])(
    '%s is still refused',
    async (url) => {
      expect((await checkUrl(url, 'local', stubResolver({ 'hooks.example.com': ['93.184.215.14'] }))).ok).toBe(false);
    },
  );
});

describe('the bound on a lookup', () => {
  afterEach(() => jest.useRealTimers());

  test(`by default a lookup that never answers is given up after ${LOOKUP_TIMEOUT_MS} ms, and not before`, async () => {
    jest.useFakeTimers();
    const outcome = boundedResolve(() => new Promise(() => {}))('slow.example.com').then(
      () => 'answered',
      (error: unknown) => error,
    );
    await jest.advanceTimersByTimeAsync(LOOKUP_TIMEOUT_MS - 1);
    const settled = await Promise.race([outcome, Promise.resolve('pending')]);
    expect(settled).toBe('pending');
    await jest.advanceTimersByTimeAsync(1);
    expect(await outcome).toBeInstanceOf(LookupTimeoutError);
  });

  test('an answer within the limit is the answer', async () => {
    const resolve = boundedResolve(async () => [{ address: '93.184.215.14', family: 4 }], 1_000);
    expect(await resolve('hooks.example.com')).toEqual([{ address: '93.184.215.14', family: 4 }]);
  });
});
