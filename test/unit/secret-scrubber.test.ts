import fc from 'fast-check';
import { SecretScrubber, withoutSecrets } from '../../lambda/models/secret-scrubber';

/** An endpoint's key taken out of what it writes, however the writing is cut into pieces (lambda/models/secret-scrubber.ts). */

const KEY = 'sk-live-4f9QzT1x';

test('whatever the pieces, what is passed on is the whole text without the key, and never the key', () => {
  const words = fc.constantFrom('a', ' ', 's', 'sk', 'sk-', KEY, KEY.slice(0, 5), KEY.slice(5), 'k-live', '\n');
  fc.assert(
    fc.property(fc.array(words, { maxLength: 30 }), fc.array(fc.nat(), { maxLength: 10 }), (parts, cuts) => {
      const text = parts.join('');
      const points = [...new Set(cuts.map((cut) => cut % (text.length + 1)))].sort((a, b) => a - b);
      const pieces = [0, ...points, text.length].slice(1).map((end, i, ends) => text.slice(i === 0 ? 0 : (ends[i - 1] ?? 0), end));
      const scrubber = new SecretScrubber([KEY]);
      const passed = [...pieces.map((piece) => scrubber.push(piece)), scrubber.end()];
      expect(passed.join('')).toBe(withoutSecrets(text, [KEY]));
      for (const each of passed) expect(each).not.toContain(KEY);
    }),
  );
});

test('text that cannot begin a key is passed on at once', () => {
  const scrubber = new SecretScrubber([KEY]);
  expect(scrubber.push('Hello there')).toBe('Hello there');
  expect(scrubber.push(' and s')).toBe(' and ');
  expect(scrubber.push('ome')).toBe('some');
});
