import type { DeliveryEntry } from '../../../../src/app/dashboard/deliveries';
import { translator } from '../../../../src/core/i18n';
import { deliveriesPanel } from '../../../../src/edges/inbound/web/dashboard/render-deliveries';
import { pageText } from '../../../support/e2e';

/**
 * The Syncs page's panel of Patreon's deliveries, drawn from entries in each state: what a staff
 * member reads in each row, in English and in German, and a name typed on Patreon never adds markup.
 */

const AT = new Date('2026-11-20T12:00:00Z');
const GUILD = '100000000000000001';

const member = (over: Partial<Extract<DeliveryEntry['about'], { kind: 'member' }>> = {}): DeliveryEntry['about'] => ({
  kind: 'member',
  name: 'Mira',
  standing: 'active_patron',
  tiers: ['Gold'],
  discordUserId: null,
  ...over,
});

const ENTRIES: DeliveryEntry[] = [
  {
    id: 6,
    receivedAt: AT,
    event: 'members:pledge:delete',
    about: member({ standing: 'former_patron', tiers: [] }),
    state: { kind: 'done', at: AT },
  },
  {
    id: 5,
    receivedAt: AT,
    event: 'members:update',
    about: member({ name: '<b>Eve</b>', standing: 'unreadable', tiers: [] }),
    state: { kind: 'failed', attempts: 8, at: AT, error: 'the member re-read failed' },
  },
  {
    id: 4,
    receivedAt: AT,
    event: 'members:pledge:create',
    about: member({ discordUserId: '200000000000000002' }),
    state: { kind: 'waiting', attempts: 0, nextAt: AT, error: null },
  },
  {
    id: 3,
    receivedAt: AT,
    event: 'members:create',
    about: member({ name: null, standing: 'declined_patron', tiers: ['Silver'] }),
    state: { kind: 'waiting', attempts: 2, nextAt: new Date(AT.getTime() + 60_000), error: 'x'.repeat(500) },
  },
  { id: 2, receivedAt: AT, event: 'posts:publish', about: { kind: 'post', title: null }, state: { kind: 'done', at: AT } },
  { id: 1, receivedAt: AT, event: 'members:something-new', about: { kind: 'other' }, state: { kind: 'done', at: AT } },
];

function rows(locale: 'en' | 'de'): string[] {
  const html = deliveriesPanel(translator(locale), GUILD, ENTRIES).toString();
  return [...html.matchAll(/<tr>([\s\S]*?)<\/tr>/g)].slice(1).map((m) => pageText(m[1]!).replace(/\s+/g, ' ').trim());
}

test('each state and subject in words: handled, given up with its error, waiting, retrying with the next try; unknown events as Patreon named them', () => {
  const [ended, failed, waiting, retrying, post, other] = rows('en') as [string, string, string, string, string, string];
  expect(ended).toMatch(/pledge ended Mira former patron handled 2026-11-20 12:00 UTC/);
  expect(failed).toMatch(
    /member changed <b>Eve<\/b> not readable here.* given up after 8 tries; the nightly sync sets this member’s roles the member re-read failed/,
  );
  expect(waiting).toMatch(/new pledge Mira active patron: Gold waiting$/);
  expect(retrying).toMatch(
    /new member no name given payment declined: Silver retrying 2 tries failed; the next at 2026-11-20 12:01 UTC x+…$/,
  );
  expect(retrying.match(/x{10,}/)![0]).toHaveLength(199);
  expect(post).toMatch(/new post — a post without a title handled/);
  expect(other).toMatch(/members:something-new — — handled/);
});

test('a linked member links to their page; a name from Patreon is text, never markup', () => {
  const html = deliveriesPanel(translator('en'), GUILD, ENTRIES).toString();
  expect(html).toContain(`<a href="/dashboard/${GUILD}/members/200000000000000002">Mira</a>`);
  expect(html).not.toContain('<b>Eve</b>');
  expect(html).toContain('&lt;b&gt;Eve&lt;/b&gt;');
});

test('in German, every word of the panel is German', () => {
  const [ended, failed, , retrying] = rows('de') as [string, string, string, string];
  expect(ended).toMatch(/Unterstützung beendet Mira ehemaliges Mitglied verarbeitet/);
  expect(failed).toMatch(/aufgegeben nach 8 Versuchen/);
  expect(retrying).toMatch(/neuer Versuch 2 Versuche fehlgeschlagen; der nächste um/);
  expect(deliveriesPanel(translator('de'), GUILD, []).toString()).toContain('In den letzten 7 Tagen kam keine Zustellung von Patreon');
});
