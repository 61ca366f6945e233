/**
 * The pages in a real browser (Debian's Chromium through playwright-core), served over HTTP the way
 * the web server will serve them, at a phone and a desktop size, light and dark. Asserts what a
 * person would notice: sideways scrolling, clipped text, a headline or next step below the fold on
 * a phone, unreadable text, anything fetched from the network. Writes screenshots to
 * `screenshots/*.tmp.png` (ignored by git; copy the ones worth keeping).
 */
import { existsSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { chromium, type Browser, type BrowserContext, type ConsoleMessage, type Page } from 'playwright-core';
import { type Inspection, inspectPage, lookProblems } from '../../../support/page-inspection';
import { shoot } from '../../../support/screenshots';
import {
  PAGE_CONTENT_SECURITY_POLICY,
  badStateMessage,
  consentDeniedMessage,
  linkExpiredMessage,
  madeForSomeoneElseMessage,
  connectNotAllowedMessage,
  discordDeniedMessage,
  discordDownMessage,
  renderChooseCampaign,
  renderConnectResult,
  renderLinkResult,
  renderMessage,
  serviceDownMessage,
  type LinkResultView,
  renderJoinPage,
  renderJoinRefusal,
  renderJoinResult,
} from '../../../../src/edges/inbound/web/pages';
import type { JoinPlace } from '../../../../src/app/joining/join-place';
import type { PlannedUser } from '../../../../src/core/planner';
import type { MemberAddProblem } from '../../../../src/edges/outbound/discord/member-adder';
import { joinPageView, joinRefusalView, notPatronView } from '../../../../src/edges/inbound/web/join-views';
import type { JoinRefusalView, JoinResultView } from '../../../../src/edges/inbound/web/pages/views';
import { speech } from '../../../../src/edges/inbound/web/pages/speech';
import { type Locale, translator } from '../../../../src/core/i18n';
import { pricingOf } from '../../../../src/core/i18n/price';

const CHROMIUM = '/usr/bin/chromium';

// 60 characters, with an emoji, to prove long names wrap instead of overflowing.
const CAMPAIGN = 'Lumen & Lantern: Cozy Fantasy Audio Dramas for Night Owls 🌙';
const GUILD = 'The Lantern Lounge 🏮 Official Community';
const PLEDGE_URL = 'https://www.patreon.com/lumenandlantern';

function patron(overrides: Partial<LinkResultView>): LinkResultView {
  return {
    campaignName: CAMPAIGN,
    guildName: GUILD,
    patronName: 'Mira Okonkwo-Haddad',
    discordAccount: { name: 'Mira', username: 'mira.oh' },
    standing: 'active',
    standingText: 'Active patron since 2026-03-14',
    tiers: [],
    granted: [],
    kept: [],
    removed: [],
    notGranted: [],
    problems: [],
    inGuild: true,
    pledgeUrl: PLEDGE_URL,
    movedFromAnotherAccount: false,
    ...overrides,
  };
}

interface Sample {
  name: string;
  status: number;
  html: string;
}

const SAMPLES: Sample[] = [
  {
    name: 'link-active',
    status: 200,
    html: renderLinkResult(
      patron({
        tiers: ['Gold Lantern ✨'],
        granted: [
          { name: 'Gold Lantern', reason: 'Gold Lantern ✨ tier (active patron since 2026-03-14)' },
          { name: 'Early Access 🎧', reason: 'Gold Lantern ✨ tier (active patron since 2026-03-14)' },
        ],
        kept: [{ name: 'Patron', reason: 'every paid tier (active patron since 2026-03-14)' }],
        notGranted: [{ name: 'Platinum Circle', reason: 'comes with the Platinum Circle tier, which you are not in' }],
      }),
    ),
  },
  {
    name: 'link-grace',
    status: 200,
    html: renderLinkResult(
      patron({
        standing: 'grace',
        standingText: 'Payment declined on 2026-11-02; roles kept until 2026-11-09',
        tiers: ['Gold Lantern ✨'],
        kept: [
          {
            name: 'Gold Lantern',
            reason: 'Gold Lantern ✨ tier: declined on 2026-11-02; roles kept until 2026-11-09 (7-day grace period)',
          },
          { name: 'Patron', reason: 'every paid tier: declined on 2026-11-02; roles kept until 2026-11-09 (7-day grace period)' },
        ],
      }),
    ),
  },
  {
    name: 'link-lapsed',
    status: 200,
    html: renderLinkResult(
      patron({
        standing: 'lapsed',
        standingText: 'Payment declined on 2026-10-20; the 7-day grace period ended on 2026-10-27',
        removed: [
          { name: 'Gold Lantern', reason: 'Gold Lantern ✨ tier: declined on 2026-10-20; the 7-day grace period ended on 2026-10-27' },
          { name: 'Patron', reason: 'every paid tier: declined on 2026-10-20; the 7-day grace period ended on 2026-10-27' },
        ],
      }),
    ),
  },
  {
    name: 'link-never-pledged',
    status: 200,
    html: renderLinkResult(patron({ standing: 'none', standingText: 'Not a patron of this campaign' })),
  },
  {
    name: 'link-former',
    status: 200,
    html: renderLinkResult(
      patron({
        standing: 'former',
        standingText: 'Former patron: the pledge ended on 2026-09-30',
        removed: [{ name: 'Silver Lantern', reason: 'former patron: the pledge has ended' }],
      }),
    ),
  },
  {
    name: 'link-follower',
    status: 200,
    html: renderLinkResult(patron({ standing: 'follower', standingText: 'Follows the campaign without pledging' })),
  },
  {
    name: 'link-not-in-server',
    status: 200,
    html: renderLinkResult(patron({ inGuild: false, tiers: ['Silver Lantern', 'Audio Commentary Add-on 🎙️'] })),
  },
  {
    name: 'link-role-problem',
    status: 200,
    html: renderLinkResult(
      patron({
        tiers: ['Gold Lantern ✨'],
        granted: [{ name: 'Patron', reason: 'every paid tier (active patron since 2026-03-14)' }],
        problems: [
          {
            name: 'Gold Lantern',
            problem: "This role is above Tierlink's own role, so Discord does not let the bot give it.",
            fix: 'Drag the Tierlink role above Gold Lantern in Server Settings → Roles.',
          },
        ],
      }),
    ),
  },
  {
    name: 'link-moved',
    status: 200,
    html: renderLinkResult(
      patron({
        patronName: 'Bartholomew Featherstonehaugh-Montgomery III',
        movedFromAnotherAccount: true,
        tiers: ['Copper Lantern'],
        granted: [
          {
            name: 'SupremeGrandArchivistOfTheLanternLoungeAndKeeperOfTheLore',
            reason: 'Copper Lantern tier (active patron since 2025-12-01)',
          },
        ],
      }),
    ),
  },
  {
    name: 'connect-result',
    status: 200,
    html: renderConnectResult({
      campaignName: CAMPAIGN,
      guildName: GUILD,
      tiers: [
        { title: 'Copper Lantern', amountCents: 300, patronCount: 412, roles: ['Patron'] },
        { title: 'Gold Lantern ✨', amountCents: 1000, patronCount: 128, roles: ['Patron', 'Gold Lantern', 'Early Access 🎧'] },
        { title: 'Platinum Circle: Producer Credits and Monthly Live Table Reads', amountCents: 2550, patronCount: 9, roles: [] },
      ],
      webhook: { state: 'registered', detail: null },
      dryRun: { linkedMembers: 214, adds: 37, removes: 3, held: false },
      problems: [
        {
          name: 'Platinum Circle: Producer Credits and Monthly Live Table Reads',
          problem: 'This tier gives no Discord role, so its patrons get nothing in the server.',
          fix: 'Run /map with this tier and the role it should give.',
        },
      ],
    }),
  },
  {
    name: 'connect-held',
    status: 200,
    html: renderConnectResult({
      campaignName: 'Pixel Forge Studio',
      guildName: 'Pixel Forge',
      tiers: [
        { title: 'Apprentice', amountCents: 500, patronCount: null, roles: ['Apprentice'] },
        { title: 'Smith', amountCents: 1500, patronCount: null, roles: ['Smith'] },
      ],
      webhook: { state: 'failed', detail: 'Patreon answered 403: the creator token lacks the w:campaigns.webhook scope.' },
      dryRun: { linkedMembers: 880, adds: 4, removes: 311, held: true },
      problems: [],
    }),
  },
  {
    name: 'choose-campaign',
    status: 200,
    html: renderChooseCampaign({
      creatorName: 'Ada Lindqvist',
      guildName: GUILD,
      action: '/connect/choose',
      csrf: 'csrf-token',
      choices: [
        { name: CAMPAIGN, url: PLEDGE_URL, patronCount: 1843, ticket: 'ticket-1' },
        {
          name: 'Ada Draws Dragons',
          url: 'https://www.patreon.com/adadrawsdragons',
          patronCount: 212,
          ticket: 'ticket-2',
        },
        { name: 'Night Owl Sketchbook 🦉', url: null, patronCount: null, ticket: 'ticket-3' },
      ],
    }),
  },
  { name: 'message-expired', status: 410, html: renderMessage(linkExpiredMessage('/link')) },
  { name: 'message-denied', status: 200, html: renderMessage(consentDeniedMessage('/link')) },
  { name: 'message-bad-state', status: 400, html: renderMessage(badStateMessage('/link')) },
  { name: 'message-service-down', status: 502, html: renderMessage(serviceDownMessage('/connect')) },
  // A forwarded /link: the Discord account signed in is not the one that ran /link.
  {
    name: 'message-someone-else',
    status: 403,
    html: renderMessage(madeForSomeoneElseMessage('/link', { username: 'penny.lumen', globalName: 'Penny Ó Ceallaigh' })),
  },
  { name: 'message-connect-not-allowed', status: 403, html: renderMessage(connectNotAllowedMessage()) },
  { name: 'message-discord-denied', status: 200, html: renderMessage(discordDeniedMessage('/link')) },
  { name: 'message-discord-down', status: 502, html: renderMessage(discordDownMessage('/connect')) },
  {
    name: 'connect-held-back',
    status: 200,
    html: renderConnectResult({
      campaignName: CAMPAIGN,
      guildName: GUILD,
      tiers: [{ title: 'Lantern Keepers (moderators)', amountCents: 2500, patronCount: 3, roles: ['Keepers'] }],
      webhook: { state: 'registered', detail: null },
      dryRun: { linkedMembers: 0, adds: 0, removes: 0, held: false },
      problems: [
        {
          name: 'Lantern Keepers (moderators)',
          problem:
            'Keepers is held back: it has the Kick Members, Ban Members and Moderate Members permissions, and the server owner or an administrator has not allowed Tierlink to give it.',
          fix: 'The server owner or an administrator can allow it with /allow-role role:@Keepers, or remove those permissions from Keepers.',
        },
      ],
    }),
  },
  ...joinSamples(),
  ...languageSamples('de', { currency: 'EUR', cadence: 'creation' }, 'all'),
  ...languageSamples('pt-BR', { currency: 'BRL', cadence: 'month' }, 'all'),
  ...languageSamples('es-ES', { currency: 'EUR', cadence: 'month' }, 'some'),
];

/**
 * The patron's pages in German (the longest of the four), Brazilian Portuguese and Spanish, with
 * prices in the campaign's currency and cadence: each is held to the same checks as the English
 * ones (no sideways scrolling on a phone, the next step on screen), named `<page>-<language>`.
 */
function languageSamples(locale: Locale, pricing: { currency: string; cadence: 'month' | 'creation' }, which: 'all' | 'some'): Sample[] {
  const said = speech(locale);
  const t = translator(locale);
  const tier = t('grant.tier', { tier: 'Gold Lantern ✨' });
  const place: JoinPlace = {
    guildId: '100000000000000001',
    guildName: GUILD,
    campaignName: CAMPAIGN,
    pledgeUrl: PLEDGE_URL,
    tiers: [
      { title: 'Candle', amountCents: 300, ...pricing, payPerName: null, roles: ['Candle'] },
      { title: 'Lantern', amountCents: 550, ...pricing, payPerName: null, roles: ['Lantern', 'Early Access 🎧'] },
      { title: 'Gold Lantern ✨', amountCents: 1000, ...pricing, payPerName: null, roles: ['Gold Lantern', 'Early Access 🎧'] },
    ],
    openToEveryone: false,
    link: { slug: 'lumenandlantern', source: 'vanity', url: 'https://tierlink.example.com/join/lumenandlantern' },
  };
  const languages = (l: Locale) => `/join/lumenandlantern?lang=${l}`;
  const pricingRow = { currency: pricing.currency, payPer: pricing.cadence, payPerName: null };
  const lapsed = {
    kind: 'lapsed',
    source: 'patreon',
    campaignId: '1',
    tierIds: [],
    reason: 'payment declined',
    graceEndsAt: null,
    isFollower: false,
    basis: null,
  };
  const samples: Sample[] = [
    {
      name: `join-page-${locale}`,
      status: 200,
      html: renderJoinPage(joinPageView(place, 'ready', '/join/lumenandlantern/start', t), said, languages),
    },
    {
      name: `link-active-${locale}`,
      status: 200,
      html: renderLinkResult(
        patron({
          standingText: t('linkPage.standingActive'),
          tiers: ['Gold Lantern ✨'],
          granted: [
            { name: 'Gold Lantern', reason: tier },
            { name: 'Early Access 🎧', reason: tier },
          ],
          kept: [{ name: 'Patron', reason: t('grant.setting') }],
        }),
        said,
      ),
    },
  ];
  if (which === 'some') return samples;
  return [
    ...samples,
    {
      name: `link-grace-${locale}`,
      status: 200,
      html: renderLinkResult(
        patron({
          standing: 'grace',
          standingText: t('linkPage.standingGrace', { date: '9. November 2026' }),
          graceEndsAt: new Date('2026-11-09T00:00:00Z'),
          tiers: ['Gold Lantern ✨'],
          kept: [{ name: 'Gold Lantern', reason: tier }],
        }),
        said,
      ),
    },
    {
      name: `link-lapsed-${locale}`,
      status: 200,
      html: renderLinkResult(
        patron({ standing: 'lapsed', standingText: t('linkPage.standingLapsed'), removed: [{ name: 'Gold Lantern', reason: tier }] }),
        said,
      ),
    },
    {
      name: `join-added-${locale}`,
      status: 200,
      html: renderJoinResult(
        {
          outcome: 'added',
          campaignName: CAMPAIGN,
          guildName: GUILD,
          discordAccount: { name: 'Mira', username: 'mira.oh' },
          serverUrl: `https://discord.com/channels/${place.guildId}`,
          tiers: ['Gold Lantern ✨'],
          granted: [
            { name: 'Gold Lantern', reason: tier },
            { name: 'Early Access 🎧', reason: tier },
          ],
          kept: [],
          notGranted: [],
          waiting: [],
          problems: [],
          joinUrl: place.link.url,
        },
        said,
      ),
    },
    {
      // A server with Membership Screening: in, with no role until the rules are accepted.
      name: `join-pending-${locale}`,
      status: 200,
      html: renderJoinResult(
        {
          outcome: 'pending',
          campaignName: CAMPAIGN,
          guildName: GUILD,
          discordAccount: { name: 'Mira', username: 'mira.oh' },
          serverUrl: `https://discord.com/channels/${place.guildId}`,
          tiers: ['Gold Lantern ✨'],
          granted: [],
          kept: [],
          notGranted: [],
          waiting: [
            { name: 'Gold Lantern', reason: tier },
            { name: 'Early Access 🎧', reason: tier },
          ],
          problems: [],
          joinUrl: place.link.url,
        },
        said,
      ),
    },
    {
      name: `join-lapsed-${locale}`,
      status: 403,
      html: renderJoinRefusal(
        notPatronView(place, { planned: { entitlements: [lapsed] } as unknown as PlannedUser, admitted: false }, t),
        said,
        languages,
      ),
    },
    { name: `message-used-${locale}`, status: 410, html: renderMessage(linkExpiredMessage('/link', t, true), said) },
    // The creator's pages after /connect, with long tier titles, a held sync and a role to fix.
    {
      name: `connect-result-${locale}`,
      status: 200,
      html: renderConnectResult(
        {
          campaignName: CAMPAIGN,
          guildName: GUILD,
          tiers: [
            { title: 'Copper Lantern', amountCents: 300, patronCount: 412, roles: ['Patron'], pricing: pricingOf(pricingRow) },
            {
              title: 'Platinum Circle: Producer Credits and Monthly Live Table Reads',
              amountCents: 2550,
              patronCount: 9,
              roles: [],
              pricing: pricingOf(pricingRow),
            },
          ],
          webhook: { state: 'failed', detail: 'Patreon answered 403: the creator token lacks the w:campaigns.webhook scope.' },
          dryRun: { linkedMembers: 12840, adds: 37, removes: 3110, held: true },
          problems: [
            {
              name: 'Platinum Circle: Producer Credits and Monthly Live Table Reads',
              problem: t('connectPage.tierNoRole'),
              fix: t('connectPage.tierNoRoleFix', { tier: 'Platinum Circle: Producer Credits and Monthly Live Table Reads' }),
            },
            {
              name: 'Lantern Keepers (moderators)',
              problem: t('connectPage.heldBack', {
                role: 'Lantern Keepers (moderators)',
                count: 3,
                permissions: new Intl.ListFormat(locale, { type: 'conjunction' }).format([
                  t('perm.Kick Members'),
                  t('perm.Ban Members'),
                  t('perm.Moderate Members'),
                ]),
              }),
              fix: t('connectPage.heldBackFix', { role: 'Lantern Keepers (moderators)', count: 3 }),
            },
          ],
        },
        said,
      ),
    },
    {
      name: `choose-campaign-${locale}`,
      status: 200,
      html: renderChooseCampaign(
        {
          creatorName: 'Ada Lindqvist',
          guildName: GUILD,
          action: '/connect/choose',
          csrf: 'csrf-token',
          choices: [
            { name: CAMPAIGN, url: PLEDGE_URL, patronCount: 1843, ticket: 'ticket-1' },
            { name: 'Night Owl Sketchbook 🦉', url: null, patronCount: null, ticket: 'ticket-3' },
          ],
        },
        said,
      ),
    },
  ];
}

/** The join page: the page itself, the result, and refusals a person meets. */
function joinSamples(): Sample[] {
  const place: JoinPlace = {
    guildId: '100000000000000001',
    guildName: GUILD,
    campaignName: CAMPAIGN,
    pledgeUrl: PLEDGE_URL,
    tiers: [
      { title: 'Candle', amountCents: 300, currency: 'USD', cadence: 'month', payPerName: 'month', roles: ['Candle'] },
      { title: 'Lantern', amountCents: 500, currency: 'USD', cadence: 'month', payPerName: 'month', roles: ['Lantern', 'Early Access 🎧'] },
      {
        title: 'Gold Lantern ✨',
        amountCents: 1000,
        currency: 'USD',
        cadence: 'month',
        payPerName: 'month',
        roles: ['Gold Lantern', 'Early Access 🎧'],
      },
    ],
    openToEveryone: false,
    link: { slug: 'lumenandlantern', source: 'vanity', url: 'https://tierlink.example.com/join/lumenandlantern' },
  };
  const result: JoinResultView = {
    outcome: 'added',
    campaignName: CAMPAIGN,
    guildName: GUILD,
    discordAccount: { name: 'Mira', username: 'mira.oh' },
    serverUrl: `https://discord.com/channels/${place.guildId}`,
    tiers: ['Gold Lantern ✨'],
    granted: [
      { name: 'Gold Lantern', reason: 'Gold Lantern ✨ tier (active patron since 2026-03-14)' },
      { name: 'Early Access 🎧', reason: 'Gold Lantern ✨ tier (active patron since 2026-03-14)' },
    ],
    kept: [],
    notGranted: [],
    waiting: [],
    problems: [],
    joinUrl: place.link.url,
  };
  const problem = (code: MemberAddProblem['code'], discordCode: number): MemberAddProblem => ({
    code,
    message: code,
    discordCode,
    requestSent: true,
  });
  const banned = problem('banned', 40007);
  const account = { userId: '100000000000000002', username: 'mira.oh', globalName: 'Mira' };
  const notPatron = notPatronView(place, { planned: { entitlements: [] } as unknown as PlannedUser, admitted: false });
  const refusal = (view: JoinRefusalView) => ({ status: view.status, html: renderJoinRefusal(view) });
  return [
    { name: 'join-page', status: 200, html: renderJoinPage(joinPageView(place, 'ready', '/join/lumenandlantern/start')) },
    { name: 'join-added', status: 200, html: renderJoinResult(result) },
    { name: 'join-not-patron', ...refusal(notPatron) },
    { name: 'join-banned', ...refusal(joinRefusalView({ kind: 'refused', place, discordAccount: account, problem: banned })) },
    { name: 'join-other-browser', ...refusal(joinRefusalView({ kind: 'other_browser', place })) },
    { name: 'join-already-member', status: 200, html: renderJoinResult({ ...result, outcome: 'already_member' }) },
    // A server with Membership Screening: in, the roles waiting for the rules.
    {
      name: 'join-pending',
      status: 200,
      html: renderJoinResult({ ...result, outcome: 'pending', granted: [], waiting: result.granted }),
    },
    {
      name: 'join-server-full',
      ...refusal(joinRefusalView({ kind: 'refused', place, discordAccount: account, problem: problem('server_full', 30019) })),
    },
    {
      name: 'join-too-many-servers',
      ...refusal(joinRefusalView({ kind: 'refused', place, discordAccount: account, problem: problem('too_many_servers', 30001) })),
    },
    { name: 'join-not-ready', status: 503, html: renderJoinPage(joinPageView(place, 'bot_lacks_invite', '/join/lumenandlantern/start')) },
  ];
}

/** Pages that are broken on purpose, to prove the checks below can fail. */
const CONTROLS: Record<string, string> = {
  'low-contrast':
    '<!doctype html><html lang="en"><meta name="viewport" content="width=device-width"><link rel="icon" href="data:,"><body style="background:#fff">' +
    '<h1 style="color:#111">Readable</h1><p style="color:#bbb">Pale grey on white</p><div data-next-step><li>Step</li></div></body></html>',
  overflow:
    '<!doctype html><html lang="en"><meta name="viewport" content="width=device-width"><link rel="icon" href="data:,"><body style="margin:0">' +
    '<h1 style="white-space:nowrap">A headline that never wraps and runs past the edge of a phone</h1>' +
    '<div style="overflow:hidden;width:100px"><span style="white-space:nowrap">clipped text that does not fit its box</span></div></body></html>',
};

const VIEWPORTS = [
  { label: 'phone', width: 390, height: 844, mobile: true },
  { label: 'desktop', width: 1280, height: 800, mobile: false },
] as const;

/**
 * The page checks need Debian's Chromium. CI installs it and runs them (a missing browser fails CI
 * loudly); on a developer machine without it they are skipped with this reason printed, so
 * `npm install && npm test` passes on a fresh clone. Install it with: apt-get install -y chromium.
 */
const haveChromium = existsSync(CHROMIUM);
if (!haveChromium && process.env.CI !== 'true') {
  console.warn(`Skipping the page checks in a real browser: no Chromium at ${CHROMIUM}. Install it with: apt-get install -y chromium`);
}
const inChromium = haveChromium || process.env.CI === 'true' ? describe : describe.skip;

inChromium('pages in headless Chromium', () => {
  let browser: Browser;
  let server: http.Server;
  let base: string;
  const served: string[] = [];

  beforeAll(async () => {
    if (!existsSync(CHROMIUM)) {
      throw new Error(`The page checks need Chromium at ${CHROMIUM}. Install it with: apt-get install -y chromium (CI installs it).`);
    }
    server = http.createServer((req, res) => {
      served.push(req.url ?? '');
      const control = /^\/control\/([\w-]+)$/.exec(req.url ?? '')?.[1];
      if (control && CONTROLS[control]) {
        res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(CONTROLS[control]);
        return;
      }
      const name = /^\/pages\/([\w-]+)$/.exec(req.url ?? '')?.[1];
      const sample = SAMPLES.find((s) => s.name === name);
      if (!sample) {
        res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
        return;
      }
      res
        .writeHead(sample.status, {
          'content-type': 'text/html; charset=utf-8',
          'content-security-policy': `${PAGE_CONTENT_SECURITY_POLICY}; frame-ancestors 'none'`,
          'cache-control': 'no-store',
        })
        .end(sample.html);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: [
        '--headless',
        '--no-sandbox',
        '--disable-gpu',
        '--disable-quic',
        '--no-first-run',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
      ],
    });
  });

  afterAll(async () => {
    await browser?.close();
    await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
  });

  /** Opens one of the broken-on-purpose {@link CONTROLS} in a fresh page of `context`. */
  async function visitControl(
    context: BrowserContext,
    name: string,
  ): Promise<{ inspection: Inspection; requests: string[]; errors: string[]; status: number | undefined }> {
    const page = await context.newPage();
    const requests: string[] = [];
    const errors: string[] = [];
    page.on('request', (r) => requests.push(r.url()));
    const url = `${base}/control/${name}`;
    page.on('console', (m) => {
      // The document's own 4xx/5xx status is logged as a failed load; that one is the point of the page.
      const ownStatus = m.location().url === url && m.text().startsWith('Failed to load resource: the server responded with a status of');
      if ((m.type() === 'error' || m.type() === 'warning') && !ownStatus) errors.push(m.text());
    });
    page.on('pageerror', (e) => errors.push(e.message));
    // Anything but the page itself is refused, so a stray fetch fails here instead of going out.
    await context.route('**/*', (route) => (route.request().url() === url ? route.continue() : route.abort()));
    const response = await page.goto(url, { waitUntil: 'load' });
    const inspection = await page.evaluate(inspectPage, page.viewportSize() ?? { width: 0, height: 0 });
    await page.close();
    return { inspection, requests, errors, status: response?.status() };
  }

  describe('the checks themselves', () => {
    test('flag pale text on a light background', async () => {
      const context = await browser.newContext({ viewport: { width: 390, height: 844 } });
      try {
        const { inspection } = await visitControl(context, 'low-contrast');
        expect(inspection.lowContrast).toEqual([expect.stringContaining('Pale grey on white')]);
      } finally {
        await context.close();
      }
    });

    test('flag content wider than a phone and text clipped by its box', async () => {
      const context = await browser.newContext({ viewport: { width: 390, height: 844 }, isMobile: true });
      try {
        const { inspection } = await visitControl(context, 'overflow');
        expect(inspection.scrollWidth).toBeGreaterThan(inspection.width);
        expect(inspection.overflowing).toEqual(
          expect.arrayContaining([expect.stringMatching(/^h1 .* overflows its box$/), expect.stringMatching(/^div .* clips its content$/)]),
        );
      } finally {
        await context.close();
      }
    });
  });

  /**
   * One page per viewport, kept for the whole file: a sample is loaded once per viewport and read
   * in light and in dark (the colour scheme is switched on the loaded page, as a person's system
   * switch does), and on the phone also at 320 px. What each look finds wrong is collected under
   * its name ("phone dark: …"), so a failure says which look broke.
   */
  const pages = new Map<string, { context: BrowserContext; page: Page }>();
  afterAll(async () => {
    for (const { context } of pages.values()) await context.close();
  });
  async function pageFor(viewport: (typeof VIEWPORTS)[number]): Promise<Page> {
    let held = pages.get(viewport.label);
    if (!held) {
      const context = await browser.newContext({
        viewport: { width: viewport.width, height: viewport.height },
        isMobile: viewport.mobile,
        hasTouch: viewport.mobile,
        deviceScaleFactor: viewport.mobile ? 2 : 1,
      });
      // Anything but the samples is refused, so a stray fetch fails here instead of going out.
      await context.route('**/*', (route) =>
        new URL(route.request().url()).pathname.startsWith('/pages/') ? route.continue() : route.abort(),
      );
      held = { context, page: await context.newPage() };
      pages.set(viewport.label, held);
    }
    return held.page;
  }

  test.each(SAMPLES)('page $name fits, reads and loads nothing else: phone and desktop, light and dark, and at 320 px', async (sample) => {
    const problems: string[] = [];
    for (const viewport of VIEWPORTS) {
      const page = await pageFor(viewport);
      const url = `${base}/pages/${sample.name}`;
      const requests: string[] = [];
      const errors: string[] = [];
      const onRequest = (r: { url(): string }) => requests.push(r.url());
      const onConsole = (m: ConsoleMessage) => {
        // The document's own 4xx/5xx status is logged as a failed load; that one is the point of the page.
        const ownStatus = m.location().url === url && m.text().startsWith('Failed to load resource: the server responded with a status of');
        if ((m.type() === 'error' || m.type() === 'warning') && !ownStatus) errors.push(m.text());
      };
      const onError = (e: Error) => errors.push(e.message);
      page.on('request', onRequest);
      page.on('console', onConsole);
      page.on('pageerror', onError);
      try {
        await page.setViewportSize({ width: viewport.width, height: viewport.height });
        await page.emulateMedia({ colorScheme: 'light' });
        const response = await page.goto(url, { waitUntil: 'load' });
        if (response?.status() !== sample.status) problems.push(`${viewport.label}: answered ${response?.status()}, not ${sample.status}`);
        for (const scheme of ['light', 'dark'] as const) {
          await page.emulateMedia({ colorScheme: scheme });
          const seen = await page.evaluate(inspectPage, page.viewportSize() ?? { width: 0, height: 0 });
          problems.push(...lookProblems(`${viewport.label} ${scheme}`, seen, { scheme, mobile: viewport.mobile, nextStep: true }));
          if (scheme === 'light' || viewport.mobile) {
            await shoot(page, `${sample.name}-${viewport.label}${scheme === 'dark' ? '-dark' : ''}.tmp.png`, { fullPage: true });
          }
        }
        if (viewport.mobile) {
          // The narrowest phones still in use.
          await page.emulateMedia({ colorScheme: 'light' });
          await page.setViewportSize({ width: 320, height: 568 });
          const seen = await page.evaluate(inspectPage, page.viewportSize() ?? { width: 0, height: 0 });
          if (seen.scrollWidth > 320) problems.push(`320 px: scrolls sideways (${seen.scrollWidth} px)`);
          for (const o of seen.overflowing) problems.push(`320 px: ${o}`);
        }
      } finally {
        page.off('request', onRequest);
        page.off('console', onConsole);
        page.off('pageerror', onError);
      }
      if (requests.join() !== url) problems.push(`${viewport.label}: fetched ${JSON.stringify(requests)}`);
      for (const e of errors) problems.push(`${viewport.label}: console: ${e}`);
    }
    expect(problems).toEqual([]);
  });

  test('a day is written in the reader’s own time zone; without JavaScript it stays the UTC day', async () => {
    // The grace period ends at midnight UTC on 9 November: still the 8th in São Paulo.
    const sample = SAMPLES.find((s) => s.name === 'link-grace-de')!;
    const read = async (javaScriptEnabled: boolean) => {
      const context = await browser.newContext({ timezoneId: 'America/Sao_Paulo', locale: 'pt-BR', javaScriptEnabled });
      try {
        await context.route('**/*', (route) =>
          new URL(route.request().url()).pathname.startsWith('/pages/') ? route.continue() : route.abort(),
        );
        const page = await context.newPage();
        await page.goto(`${base}/pages/${sample.name}`);
        return {
          text: await page.locator('time[data-local="day"]').first().textContent(),
          title: await page.locator('time[data-local="day"]').first().getAttribute('title'),
        };
      } finally {
        await context.close();
      }
    };
    // The page's language (German) decides the words; the browser's zone decides the day.
    expect(await read(true)).toEqual({ text: '8. November 2026', title: '9. November 2026' });
    expect(await read(false)).toEqual({ text: '9. November 2026', title: null });
  });

  test('the browser asked the server for the pages and nothing else (no favicon, no assets)', () => {
    expect(served.length).toBeGreaterThan(0);
    expect(served.filter((url) => !url.startsWith('/pages/') && !url.startsWith('/control/'))).toEqual([]);
  });
});
