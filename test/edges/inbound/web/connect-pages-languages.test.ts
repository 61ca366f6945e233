import type { TierLine } from '../../../../src/app/admin/tiers-service';
import type { SyncOutcome } from '../../../../src/app/sync/sync-scheduler';
import { LOCALES, type Locale, translator } from '../../../../src/core/i18n';
import { pricingOf } from '../../../../src/core/i18n/price';
import { connectResultView } from '../../../../src/edges/inbound/web/connect-result-view';
import { renderChooseCampaign, renderConnectResult } from '../../../../src/edges/inbound/web/pages';
import { speech } from '../../../../src/edges/inbound/web/pages/speech';
import type { ChooseCampaignView, ConnectResultView } from '../../../../src/edges/inbound/web/pages/views';
import { englishIn } from '../../../support/english-leaks';

/**
 * The `/connect` pages (the campaign chooser, the result) in the reader's language: every sentence
 * from the catalogue, prices as the campaign states them in that language, the problems of the
 * server's roles said from their facts; English word for word as before.
 */

const OTHERS = LOCALES.filter((l): l is Exclude<Locale, 'en'> => l !== 'en');
const text = (page: string) =>
  page
    .replace(/<[^>]+>/g, ' ')
    .replace(/&#39;/g, "'")
    .replace(/\s+/g, ' ');
const lang = (page: string) => /<html lang="([^"]+)">/.exec(page)?.[1];

const CHOOSER: ChooseCampaignView = {
  creatorName: 'Ada Lindqvist',
  guildName: 'Nordlicht',
  action: '/connect/choose',
  csrf: 'csrf',
  choices: [
    { name: 'Atelier Nord', url: 'https://www.patreon.com/ateliernord', patronCount: 1843, ticket: 't1' },
    { name: 'Skizzenbuch', url: null, patronCount: null, ticket: 't2' },
  ],
};

const perCreation = pricingOf({ currency: 'EUR', payPer: 'creation', payPerName: null });

/** A server whose roles have every kind of problem: above the bot, held back, deleted, and a tier without a role. */
const TIERS: TierLine[] = [
  {
    campaignId: 'c1',
    campaignName: 'Atelier Nord',
    tierId: 't1',
    title: 'Skizze',
    amountCents: 500,
    pricing: perCreation,
    patronCount: 3,
    published: true,
    roles: [
      {
        roleId: 'r1',
        roleName: 'VIP',
        source: 'map',
        elsewhere: null,
        problem: {
          message: "VIP is at or above Tierlink, the bot's highest role, so Discord refuses to assign it.",
          fix: 'Move the Tierlink role above VIP in Server Settings → Roles.',
          facts: { code: 'above_bot', roleName: 'VIP', botRoleName: 'Tierlink' },
        },
        heldBack: null,
      },
      {
        roleId: 'r2',
        roleName: 'Keepers',
        source: 'map',
        elsewhere: null,
        problem: null,
        heldBack: {
          message:
            'Keepers is held back: it has the Ban Members permission, and the server owner or an administrator has not allowed Tierlink to give it.',
          fix: 'The server owner or an administrator can allow it with /allow-role role:@Keepers, or remove the permission from Keepers.',
          permissions: ['Ban Members'],
          gained: false,
        },
      },
    ],
  },
  {
    campaignId: 'c1',
    campaignName: 'Atelier Nord',
    tierId: 't2',
    title: 'Gold',
    amountCents: 1000,
    pricing: perCreation,
    patronCount: 1,
    published: true,
    roles: [
      {
        roleId: '900',
        roleName: null,
        source: 'chat_role_ids',
        elsewhere: null,
        problem: { message: 'role 900 does not exist in this server', fix: 'Set the tier’s Discord role on Patreon …' },
        heldBack: null,
      },
    ],
  },
  {
    campaignId: 'c1',
    campaignName: 'Atelier Nord',
    tierId: 't3',
    title: 'Leer',
    amountCents: 300,
    pricing: perCreation,
    patronCount: 0,
    published: true,
    roles: [],
  },
];

async function view(locale: Locale, sync: () => Promise<SyncOutcome>): Promise<ConnectResultView> {
  return connectResultView(
    {
      guilds: { name: async () => 'Nordlicht' },
      tiers: { list: async () => TIERS } as never,
      registration: {
        health: async () => ({ exists: false, lastState: 'failed', lastDetail: 'Patreon answered 403', manualSecret: false }) as never,
      },
      runSync: sync,
      logger: { warn: () => undefined } as never,
    },
    { kind: 'bound', bound: { guildId: 'g1', campaignId: 'c1', name: 'Atelier Nord' } } as never,
    translator(locale),
  );
}

const failing = async (): Promise<SyncOutcome> => {
  throw new Error('down');
};

describe.each(OTHERS)('%s', (locale) => {
  const t = translator(locale);

  test('the campaign chooser: its language, no English sentence, counts the language’s way', () => {
    const page = renderChooseCampaign(CHOOSER, speech(locale));
    expect(lang(page)).toBe(locale);
    expect(text(page)).toContain(t('connectPage.chooseHeadline'));
    expect(text(page)).toContain(t('connectPage.patrons', { count: 1843 }));
    expect(text(page)).toContain(t('connectPage.patronsHidden'));
    expect(englishIn(page)).toEqual([]);
    const none = renderChooseCampaign({ ...CHOOSER, choices: [] }, speech(locale));
    expect(text(none)).toContain(t('connectPage.noCampaignTitle'));
    expect(englishIn(none)).toEqual([]);
  });

  test('the connect result: its language, the roles’ problems from their facts, prices as the campaign states them', async () => {
    const said = await view(locale, failing);
    const page = renderConnectResult(said, speech(locale));
    expect(lang(page)).toBe(locale);
    const words = text(page);
    expect(words).toContain(t('connectPage.connectedToFix', { count: 5 }));
    expect(words).toContain(t('refusal.aboveBot', { role: 'VIP', bot: 'Tierlink' }));
    expect(words).toContain(t('connectPage.heldBack', { role: 'Keepers', count: 1, permissions: t('perm.Ban Members') }));
    expect(words).toContain(t('connectPage.roleMissing', { role: '900' }));
    expect(words).toContain(t('connectPage.tierNoRole'));
    expect(words).toContain(t('connectPage.previewFailed'));
    // A failed webhook: Patreon's answer as it came, inside a sentence of the page's language.
    expect(words).toContain(t('connectPage.liveAnswer', { detail: 'Patreon answered 403' }));
    // "5 € pro Werk", "5 € por creación", "€ 5 por criação": the campaign's currency and cadence.
    expect(words).toContain(
      t('price.creation', {
        amount: new Intl.NumberFormat(locale, { style: 'currency', currency: 'EUR', maximumFractionDigits: 0 }).format(5),
      }).replace(/\u00a0/g, ' '),
    );
    expect(page).not.toContain('$');
    expect(englishIn(page)).toEqual([]);
  });

  test('the result with a held sync and every count: numbers the language’s way, no English', async () => {
    const page = renderConnectResult(
      {
        campaignName: 'Atelier Nord',
        guildName: null,
        tiers: [],
        webhook: { state: 'registered', detail: 'registered webhook 5 at https://example.com/webhooks/patreon' },
        dryRun: { linkedMembers: 1234, adds: 2, removes: 1500, held: true },
        problems: [],
      },
      speech(locale),
    );
    expect(text(page)).toContain(new Intl.NumberFormat(locale).format(1234));
    expect(text(page)).toContain(t('connectPage.reviewDetail', { count: 1500 }).replace(/\u00a0/g, ' '));
    // The registration's own note (an id and an address) is not shown in another language.
    expect(page).not.toContain('registered webhook 5');
    expect(englishIn(page)).toEqual([]);
  });
});

test('English stays word for word: the problems as the services state them, the webhook’s note as it is', async () => {
  const said = await view('en', failing);
  expect(said.problems.map((p) => p.problem)).toEqual([
    "VIP is at or above Tierlink, the bot's highest role, so Discord refuses to assign it.",
    TIERS[0]!.roles[1]!.heldBack!.message,
    'role 900 does not exist in this server',
    'grants no role in this server yet',
    'the sync preview could not be computed',
  ]);
  const page = text(renderConnectResult(said));
  expect(lang(renderConnectResult(said))).toBe('en');
  expect(page).toContain('Connected, with 5 things to fix');
  expect(page).toContain('Skizze €5 per creation · 3 patrons');
  expect(page).toContain('Live updates are off Roles still catch up in the nightly sync. Patreon answered 403');
  const chooser = text(renderChooseCampaign(CHOOSER));
  expect(chooser).toContain(
    'Ada Lindqvist , your Patreon account runs 2 campaigns. Pick the one whose tiers decide the roles in Nordlicht .',
  );
  expect(chooser).toContain('1,843 patrons');
});
