import { validateJoinSlug, vanitySlug } from '../../src/core/join-slug';

describe('validateJoinSlug', () => {
  it.each([
    ['lumen', 'lumen'],
    ['  Lumen-And_Lantern ', 'lumen-and_lantern'],
    ['abc', 'abc'],
    ['a'.repeat(32), 'a'.repeat(32)],
    ['gold2026', 'gold2026'],
  ])('accepts %j as %j', (input, expected) => {
    expect(validateJoinSlug(input)).toEqual({ ok: true, value: expected });
  });

  it.each([
    ['ab', /3 to 32 characters/],
    ['a'.repeat(33), /3 to 32 characters/],
    ['lumen lantern', /letters a–z/],
    ['-lumen', /start and end/],
    ['lumen_', /start and end/],
    ['lümen', /letters a–z/],
    ['lumen/../x', /letters a–z/],
    ['123456789012345678', /all digits/],
    ['callback', /reserved/],
    ['Start', /reserved/],
  ])('refuses %j with a sentence', (input, message) => {
    const result = validateJoinSlug(input);
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.error.message).toMatch(message);
  });
});

describe('vanitySlug', () => {
  it('is the vanity when it makes a valid slug, else null', () => {
    expect(vanitySlug('LumenAndLantern')).toBe('lumenandlantern');
    expect(vanitySlug(null)).toBeNull();
    expect(vanitySlug('x')).toBeNull();
    expect(vanitySlug('callback')).toBeNull();
  });
});
