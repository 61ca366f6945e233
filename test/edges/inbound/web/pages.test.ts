import { createHash } from 'node:crypto';
import { escapeHtml, html, prose, safeHref } from '../../../../src/edges/inbound/web/pages/html';
import { LOCAL_TIME_SCRIPT } from '../../../../src/edges/inbound/web/pages/local-time';
import {
  PAGE_CONTENT_SECURITY_POLICY,
  badStateMessage,
  choiceRefusedMessage,
  chooseByFormMessage,
  consentDeniedMessage,
  otherBrowserMessage,
  linkExpiredMessage,
  renderChooseCampaign,
  renderConnectResult,
  renderLinkResult,
  renderMessage,
  serviceDownMessage,
  type ChooseCampaignView,
  type ConnectResultView,
  type LinkResultView,
  type MessageView,
} from '../../../../src/edges/inbound/web/pages';

const PLEDGE_URL = 'https://www.patreon.com/lumenandlantern';

function linkView(overrides: Partial<LinkResultView> = {}): LinkResultView {
  return {
    campaignName: 'Lumen & Lantern',
    guildName: 'The Lantern Lounge',
    patronName: 'Mira Okonkwo',
    discordAccount: { name: 'Mira', username: 'mira.ok' },
    standing: 'active',
    standingText: 'Active patron since 2026-03-14',
    tiers: ['Gold Lantern'],
    granted: [{ name: 'Gold Lantern', reason: 'Gold Lantern tier (active patron since 2026-03-14)' }],
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

function connectView(overrides: Partial<ConnectResultView> = {}): ConnectResultView {
  return {
    campaignName: 'Lumen & Lantern',
    guildName: 'The Lantern Lounge',
    tiers: [
      { title: 'Copper', amountCents: 300, patronCount: 412, roles: ['Patron'] },
      { title: 'Gold', amountCents: 2550, patronCount: null, roles: ['Patron', 'Gold'] },
    ],
    webhook: { state: 'registered', detail: null },
    dryRun: { linkedMembers: 20, adds: 5, removes: 1, held: false },
    problems: [],
    ...overrides,
  };
}

function chooseView(overrides: Partial<ChooseCampaignView> = {}): ChooseCampaignView {
  return {
    creatorName: 'Ada Lindqvist',
    guildName: 'The Lantern Lounge',
    action: '/connect/choose',
    csrf: 'csrf-token',
    choices: [
      { name: 'Lumen & Lantern', url: PLEDGE_URL, patronCount: 1843, ticket: 'ticket-1' },
      { name: 'Ada Draws Dragons', url: null, patronCount: null, ticket: 'ticket-2' },
    ],
    ...overrides,
  };
}

/** The visible text of the body: inline tags dropped, block tags a space, entities decoded. */
function text(markup: string): string {
  const body = markup.includes('<body') ? markup.slice(markup.indexOf('<body')) : markup;
  return body
    .replace(/<\/?(strong|span|code|a|b|i)\b[^>]*>/g, '')
    .replace(/<[^>]*>/g, ' ')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&amp;/g, '&')
    .replace(/\s+/g, ' ')
    .trim();
}

function headline(page: string): string {
  const h1s = [...page.matchAll(/<h1>([\s\S]*?)<\/h1>/g)];
  expect(h1s).toHaveLength(1);
  return text(h1s[0]![1]!);
}

function nextStep(page: string): string {
  const match = /<section class="next" data-next-step[^>]*>([\s\S]*?)<\/section>/.exec(page);
  if (!match) throw new Error('the page has no next step');
  return text(match[1]!);
}

function buttons(page: string): Array<{ href: string; label: string }> {
  return [...page.matchAll(/<a class="button" href="([^"]*)"[^>]*>([\s\S]*?)<\/a>/g)].map((m) => ({ href: m[1]!, label: text(m[2]!) }));
}

const HOSTILE = `<script>alert("x")</script><img src=x onerror=alert(1)>"'&`;

describe('html templates', () => {
  test('escape the five characters that matter in content and quoted attributes', () => {
    expect(escapeHtml(`<a href="x" title='y'>&</a>`)).toBe('&lt;a href=&quot;x&quot; title=&#39;y&#39;&gt;&amp;&lt;/a&gt;');
  });

  test('escape every interpolated value, item by item, and leave nested templates alone', () => {
    const inner = html`<b>${'<i>'}</b>`;
    expect(html`<p>${'<x>'}${inner}${['<y>', html`<br>`]}${null}${undefined}${false}${0}</p>`.toString()).toBe(
      '<p>&lt;x&gt;<b>&lt;i&gt;</b>&lt;y&gt;<br>0</p>',
    );
  });

  test('links: only http(s) addresses and paths on this site', () => {
    expect(safeHref('https://www.patreon.com/x?a=1')).toBe('https://www.patreon.com/x?a=1');
    expect(safeHref('/connect/choose?c=1')).toBe('/connect/choose?c=1');
    for (const bad of [
      'javascript:alert(1)',
      'JaVaScRiPt:alert(1)',
      'data:text/html,<p>',
      '//evil.test/x',
      '/\\evil.test',
      'not a url',
      '',
      null,
    ]) {
      expect(safeHref(bad)).toBeNull();
    }
  });

  test('prose keeps dates on one line and sets slash commands as code, escaped', () => {
    expect(prose('Run /map on <Gold> until 2026-11-09, see https://x.test/map').toString()).toBe(
      'Run <code>/map</code> on &lt;Gold&gt; until <span class="nowrap">2026-11-09</span>, see https://x.test/map',
    );
  });
});

describe('every page', () => {
  const pages: Array<[string, string]> = [
    ['link result', renderLinkResult(linkView())],
    ['connect result', renderConnectResult(connectView())],
    ['campaign chooser', renderChooseCampaign(chooseView())],
    ['message', renderMessage(linkExpiredMessage('/link'))],
  ];

  test.each(pages)('%s is a complete, self-contained document', (_, page) => {
    expect(page.startsWith('<!doctype html>\n<html lang="en">')).toBe(true);
    expect(page).toContain('<meta charset="utf-8">');
    expect(page).toContain('<meta name="viewport" content="width=device-width, initial-scale=1">');
    expect(page).toContain('<meta name="referrer" content="no-referrer">');
    expect(page).toMatch(/<title>[^<]+ · Tierlink<\/title>/);
    // One script, the fixed one that writes times in the reader's time zone; nothing else runs.
    expect([...page.matchAll(/<script[^>]*>([\s\S]*?)<\/script>/g)].map((m) => m[1])).toEqual([LOCAL_TIME_SCRIPT]);
    expect(page.replace(`<script>${LOCAL_TIME_SCRIPT}</script>`, '')).not.toMatch(/<script|<[^>]*\s(on\w+|style|src)=|@import|url\(/i);
    // The only <link> is the inline favicon; nothing is fetched.
    expect([...page.matchAll(/<link [^>]*>/g)].map((m) => m[0])).toEqual([
      expect.stringMatching(/^<link rel="icon" href="data:image\/svg\+xml,/),
    ]);
  });

  test.each(pages)('%s carries a policy that allows exactly its own stylesheet and the time script', (_, page) => {
    const styles = [...page.matchAll(/<style>([\s\S]*?)<\/style>/g)];
    expect(styles).toHaveLength(1);
    const hash = createHash('sha256').update(styles[0]![1]!).digest('base64');
    expect(PAGE_CONTENT_SECURITY_POLICY).toContain(`style-src 'sha256-${hash}'`);
    expect(PAGE_CONTENT_SECURITY_POLICY).toContain("default-src 'none'");
    const scriptHash = createHash('sha256').update(LOCAL_TIME_SCRIPT).digest('base64');
    expect(PAGE_CONTENT_SECURITY_POLICY).toContain(`script-src 'sha256-${scriptHash}'`);
    expect(PAGE_CONTENT_SECURITY_POLICY).not.toMatch(/unsafe-inline|unsafe-eval|connect-src|\*/);
    expect(page).toContain(`<meta http-equiv="Content-Security-Policy" content="${escapeHtml(PAGE_CONTENT_SECURITY_POLICY)}">`);
  });

  test.each(pages)('%s has one headline and a next step', (_, page) => {
    expect(headline(page)).not.toBe('');
    expect(page).toContain('data-next-step');
  });
});

describe('hostile names from users never become markup', () => {
  const hostileProblem = { name: HOSTILE, problem: HOSTILE, fix: HOSTILE };
  const hostileRole = { name: HOSTILE, reason: HOSTILE };
  const pages: Array<[string, string]> = [
    [
      'link result',
      renderLinkResult(
        linkView({
          campaignName: HOSTILE,
          guildName: HOSTILE,
          patronName: HOSTILE,
          standingText: HOSTILE,
          tiers: [HOSTILE],
          granted: [hostileRole],
          kept: [hostileRole],
          removed: [hostileRole],
          notGranted: [hostileRole],
          problems: [hostileProblem],
          inGuild: false,
          movedFromAnotherAccount: true,
        }),
      ),
    ],
    [
      'link result (not a patron)',
      renderLinkResult(
        linkView({ standing: 'none', campaignName: HOSTILE, guildName: HOSTILE, patronName: HOSTILE, standingText: HOSTILE }),
      ),
    ],
    [
      'connect result',
      renderConnectResult(
        connectView({
          campaignName: HOSTILE,
          guildName: HOSTILE,
          tiers: [{ title: HOSTILE, amountCents: 100, patronCount: 1, roles: [HOSTILE] }],
          webhook: { state: 'failed', detail: HOSTILE },
          problems: [hostileProblem],
        }),
      ),
    ],
    [
      'campaign chooser',
      renderChooseCampaign(
        chooseView({
          creatorName: HOSTILE,
          guildName: HOSTILE,
          choices: [{ name: HOSTILE, url: PLEDGE_URL, patronCount: 3, ticket: 't' }],
        }),
      ),
    ],
    ['message', renderMessage({ status: 400, tone: 'error', title: HOSTILE, message: HOSTILE, next: HOSTILE })],
  ];

  test.each(pages)('%s', (_, page) => {
    expect(page.replace(`<script>${LOCAL_TIME_SCRIPT}</script>`, '')).not.toContain('<script');
    expect(page).not.toContain('<img');
    expect(page).not.toMatch(/<[^>]*\sonerror=/);
    expect(page).toContain('&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;&lt;img src=x onerror=alert(1)&gt;&quot;&#39;&amp;');
  });

  test('a javascript: pledge link is not offered', () => {
    const page = renderLinkResult(linkView({ standing: 'none', pledgeUrl: 'javascript:alert(1)' }));
    expect(page).not.toContain('javascript:');
    expect(buttons(page)).toEqual([]);
    expect(nextStep(page)).toContain('Become a patron on Patreon');
  });

  test('a quote in a URL stays inside its attribute', () => {
    const page = renderLinkResult(linkView({ standing: 'former', pledgeUrl: 'https://x.test/?a="><script>alert(1)</script>' }));
    expect(page.replace(`<script>${LOCAL_TIME_SCRIPT}</script>`, '')).not.toContain('<script');
    expect(buttons(page)).toEqual([{ href: 'https://x.test/?a=%22%3E%3Cscript%3Ealert(1)%3C/script%3E', label: 'Become a patron again' }]);
  });

  test('choices with unsafe URLs keep their name but lose the link', () => {
    const page = renderChooseCampaign(
      chooseView({ choices: [{ name: 'Sneaky', url: 'javascript:alert(1)', patronCount: 1, ticket: 't' }] }),
    );
    expect(page).not.toContain('javascript:');
    expect(text(page)).toContain('Sneaky');
  });

  test('each choice is a form posting its ticket and the page’s token, never a link (a choice acts once, by POST)', () => {
    const page = renderChooseCampaign(chooseView());
    const forms = [...page.matchAll(/<form method="post" action="([^"]+)">(.*?)<\/form>/g)].map((m) => ({
      action: m[1],
      fields: [...m[2]!.matchAll(/<input type="hidden" name="(\w+)" value="([^"]*)">/g)].map((f) => [f[1], f[2]]),
      button: /<button type="submit" class="choice-link">/.test(m[2]!),
    }));
    expect(forms).toEqual([
      {
        action: '/connect/choose',
        fields: [
          ['ticket', 'ticket-1'],
          ['csrf', 'csrf-token'],
        ],
        button: true,
      },
      {
        action: '/connect/choose',
        fields: [
          ['ticket', 'ticket-2'],
          ['csrf', 'csrf-token'],
        ],
        button: true,
      },
    ]);
    expect(page).not.toContain('ticket-1"><a');
    expect(page).not.toMatch(/href="[^"]*ticket/);
    expect(PAGE_CONTENT_SECURITY_POLICY).toContain("form-action 'self'");
  });
});

describe('link result: every standing has a headline and a next step', () => {
  test('active, in the server, roles granted', () => {
    const page = renderLinkResult(linkView({ kept: [{ name: 'Patron', reason: 'every paid tier' }] }));
    expect(headline(page)).toBe("You're all set");
    expect(nextStep(page)).toContain('Head back to Discord: your roles are already there.');
    expect(page).toContain('<body class="tone-success">');
    expect(text(page)).toContain('Thanks for your support, Mira Okonkwo!');
    expect(text(page)).toContain('@Gold Lantern Added Gold Lantern tier (active patron since 2026-03-14)');
    expect(text(page)).toContain('@Patron Kept Every paid tier');
  });

  test('active, but not in the server: join it, the roles come when they do', () => {
    const page = renderLinkResult(linkView({ inGuild: false, granted: [] }));
    expect(headline(page)).toBe('Linked! Now join the server');
    expect(nextStep(page)).toContain('Join The Lantern Lounge. Your roles arrive when you do.');
    expect(nextStep(page)).toContain('no need to run /link again');
  });

  test('active, with a role the server cannot grant: nothing for the patron to do', () => {
    const problem = { name: 'Gold Lantern', problem: "The role is above Tierlink's role", fix: 'Drag the Tierlink role up' };
    const some = renderLinkResult(linkView({ granted: [{ name: 'Patron', reason: 'every paid tier' }], problems: [problem] }));
    expect(headline(some)).toBe("You're linked; 1 role is on hold");
    expect(nextStep(some)).toContain("Nothing to do for the role on hold: the server's owner has been told.");
    expect(text(some)).toContain("The server's owner has been told; nothing for you to do.");
    expect(text(some)).toContain("@Gold Lantern On hold The role is above Tierlink's role");
    // The fix is the owner's business, not the patron's.
    expect(text(some)).not.toContain('Drag the Tierlink role up');

    const none = renderLinkResult(linkView({ granted: [], problems: [problem, { ...problem, name: 'Early Access' }] }));
    expect(headline(none)).toBe('Linked, but your roles are on hold');
    expect(nextStep(none)).toContain("Nothing to do for the roles on hold: the server's owner has been told.");
    expect(nextStep(none)).toContain('They arrive on their own');
  });

  test('active in a tier that gives no role here', () => {
    const page = renderLinkResult(linkView({ granted: [] }));
    expect(headline(page)).toBe("You're linked");
    expect(nextStep(page)).toContain('Your tier comes with no role in The Lantern Lounge');
  });

  test('declined, inside the grace period: update the payment method before the date', () => {
    const page = renderLinkResult(
      linkView({
        standing: 'grace',
        standingText: 'Payment declined on 2026-11-02; roles kept until 2026-11-09',
        granted: [],
        kept: [{ name: 'Gold Lantern', reason: 'grace' }],
      }),
    );
    expect(headline(page)).toBe("Your last payment didn't go through");
    expect(nextStep(page)).toContain('Update your payment method on Patreon before November 9, 2026.');
    expect(buttons(page)).toEqual([{ href: PLEDGE_URL, label: 'Open Patreon' }]);
    expect(text(page)).toContain('Payment declined on 2026-11-02; roles kept until 2026-11-09');
    expect(page).toContain('<body class="tone-warning">');
  });

  test("the grace date is read from the planner's reason too", () => {
    const page = renderLinkResult(
      linkView({ standing: 'grace', standingText: 'declined on 2026-11-02; roles kept until 2026-11-09 (7-day grace period)' }),
    );
    expect(nextStep(page)).toContain('before November 9, 2026.');
    expect(text(page)).toContain('Declined on 2026-11-02; roles kept until 2026-11-09 (7-day grace period)');
  });

  test('declined, grace period and not in the server: both steps, numbered', () => {
    const page = renderLinkResult(linkView({ standing: 'grace', standingText: 'Payment declined', inGuild: false }));
    expect(nextStep(page)).toMatch(
      /^Next steps Update your payment method on Patreon soon\. .* Join The Lantern Lounge\. Your roles arrive when you do\./,
    );
    expect(page).toContain('<ol class="steps numbered">');
  });

  test('lapsed: update the payment, the roles come back on their own', () => {
    const page = renderLinkResult(
      linkView({
        standing: 'lapsed',
        standingText: 'the 7-day grace period ended on 2026-10-27',
        granted: [],
        removed: [{ name: 'Gold Lantern', reason: 'grace ended' }],
      }),
    );
    expect(headline(page)).toBe('Your membership has lapsed');
    expect(nextStep(page)).toContain('Update your payment method on Patreon to get your roles back.');
    expect(buttons(page)).toEqual([{ href: PLEDGE_URL, label: 'Update payment on Patreon' }]);
    expect(text(page)).toContain('so your patron roles were removed');
    expect(text(page)).toContain('@Gold Lantern Removed Grace ended');
  });

  test('former patron: pledge again', () => {
    const page = renderLinkResult(linkView({ standing: 'former', standingText: 'Former patron', granted: [] }));
    expect(headline(page)).toBe("You're no longer a patron");
    expect(nextStep(page)).toContain('Pledge again on Patreon to get your roles back.');
    expect(buttons(page)).toEqual([{ href: PLEDGE_URL, label: 'Become a patron again' }]);
  });

  test('follower: join a paid tier', () => {
    const page = renderLinkResult(linkView({ standing: 'follower', standingText: 'Follows without pledging', granted: [] }));
    expect(headline(page)).toBe('You follow, but aren\u2019t a paid member');
    expect(nextStep(page)).toContain('Join a paid tier on Patreon to unlock your roles.');
    expect(buttons(page)).toEqual([{ href: PLEDGE_URL, label: 'See the tiers' }]);
  });

  test('never pledged: the pledge link, and a hint for a second Patreon account', () => {
    const page = renderLinkResult(linkView({ standing: 'none', standingText: 'Not a patron', tiers: [], granted: [] }));
    expect(headline(page)).toBe("You're not a patron yet");
    expect(nextStep(page)).toContain('Become a patron on Patreon to get your roles.');
    expect(nextStep(page)).toContain('your roles arrive on their own a moment after you pledge');
    expect(text(page)).toContain('Pledged with a different Patreon account? Run /link again in Discord and sign in with that one.');
    expect(buttons(page)).toEqual([{ href: PLEDGE_URL, label: 'Become a patron' }]);
  });

  test('never pledged and no pledge link: still a next step, without a button', () => {
    const page = renderLinkResult(linkView({ standing: 'none', pledgeUrl: null, granted: [] }));
    expect(nextStep(page)).toContain('Become a patron on Patreon');
    expect(buttons(page)).toEqual([]);
  });

  test('a membership that moved from another Discord account says so', () => {
    expect(text(renderLinkResult(linkView({ movedFromAnotherAccount: true })))).toContain(
      'This Patreon account was linked to another Discord account before. It is linked to this one now, and its roles moved here with it.',
    );
    expect(text(renderLinkResult(linkView()))).not.toContain('another Discord account');
  });

  test('a missing server name reads naturally', () => {
    const page = renderLinkResult(linkView({ guildName: null, inGuild: false, granted: [] }));
    expect(nextStep(page)).toContain('Join the Discord server. Your roles arrive when you do.');
  });
});

describe('empty lists are not rendered as empty sections', () => {
  test('link result with nothing to list has no tier, role or problem section', () => {
    const page = renderLinkResult(linkView({ standing: 'none', tiers: [], granted: [] }));
    expect(page).not.toMatch(/id="(tiers|roles|problems)"/);
    expect(page).not.toMatch(/<(ul|ol)[^>]*>\s*<\/(ul|ol)>/);
  });

  test('link result shows each list only when it has entries', () => {
    const page = renderLinkResult(linkView({ tiers: [], problems: [] }));
    expect(page).toContain('id="roles"');
    expect(page).not.toContain('id="tiers"');
    expect(page).not.toContain('id="problems"');
  });

  test('connect result without tiers or problems', () => {
    const page = renderConnectResult(connectView({ tiers: [], problems: [] }));
    expect(page).not.toContain('id="tiers"');
    expect(page).not.toContain('id="problems"');
    expect(page).not.toMatch(/<(ul|ol)[^>]*>\s*<\/(ul|ol)>/);
  });

  test('a chooser with no campaign says what to do instead of showing an empty list', () => {
    const page = renderChooseCampaign(chooseView({ choices: [] }));
    expect(headline(page)).toBe('No campaign to connect');
    expect(nextStep(page)).toContain('Sign in with the Patreon account that runs your campaign');
    expect(page).not.toContain('class="choices"');
  });

  test('a message without a next step has no next-step box', () => {
    const page = renderMessage({ status: 200, tone: 'info', title: 'Done', message: 'All good.', next: null });
    expect(page).not.toContain('data-next-step');
  });
});

describe('connect result', () => {
  test('tiers with prices, patron counts and roles; a tier without a role says how to map one', () => {
    const page = renderConnectResult(
      connectView({ tiers: [...connectView().tiers, { title: 'Platinum', amountCents: 10000, patronCount: 1, roles: [] }] }),
    );
    const body = text(page);
    expect(body).toContain('Copper $3 a month · 412 patrons @Patron');
    expect(body).toContain('Gold $25.50 a month @Patron @Gold');
    expect(body).toContain('Platinum $100 a month · 1 patron No role yet. Give it one with /map.');
  });

  test('a clean connect: apply with /sync, and what that would do', () => {
    const page = renderConnectResult(connectView());
    expect(headline(page)).toBe('Your campaign is connected');
    expect(nextStep(page)).toContain(
      'Run /sync in Discord to apply the roles now. It adds 5 roles and removes 1 role across 20 linked members.',
    );
    expect(text(page)).toContain(
      'What a sync would do Nothing has changed yet: /connect only looks. linked members 20 roles to add 5 role to remove 1',
    );
    expect(text(page)).toContain('Live updates are on');
    expect(page).toContain('<body class="tone-success">');
  });

  test('problems come first, each with its fix', () => {
    const page = renderConnectResult(
      connectView({ problems: [{ name: 'Gold', problem: 'Role is above the bot', fix: 'Drag the Tierlink role above Gold' }] }),
    );
    expect(headline(page)).toBe('Connected, with 1 thing to fix');
    expect(nextStep(page)).toMatch(/^Next steps Fix the 1 problem listed below\./);
    expect(text(page)).toContain('Gold To fix Role is above the bot Drag the Tierlink role above Gold');
  });

  test('a held sync asks for a review, a failed webhook asks to turn on live updates', () => {
    const page = renderConnectResult(
      connectView({
        webhook: { state: 'failed', detail: 'Patreon answered 403.' },
        dryRun: { linkedMembers: 900, adds: 2, removes: 311, held: true },
      }),
    );
    expect(page).toContain('<body class="tone-warning">');
    expect(nextStep(page)).toContain('Turn on live updates.');
    expect(nextStep(page)).toContain('Review the plan with /sync dry_run:True before you apply it.');
    expect(nextStep(page)).toContain('would remove 311 roles at once');
    expect(text(page)).toContain('Live updates are off Roles still catch up in the nightly sync. Patreon answered 403.');
  });

  test('nobody linked yet: tell the patrons about /link', () => {
    const page = renderConnectResult(connectView({ dryRun: { linkedMembers: 0, adds: 0, removes: 0, held: false } }));
    expect(nextStep(page)).toContain('Tell your patrons to run /link in Discord.');
  });

  test('everything already in step', () => {
    const page = renderConnectResult(connectView({ dryRun: { linkedMembers: 3, adds: 0, removes: 0, held: false } }));
    expect(nextStep(page)).toContain('Nothing to do: every linked member already has the right roles.');
  });

  test.each([
    ['already-registered', 'Live updates are on'],
    ['manual-secret', 'Live updates use your webhook'],
  ] as const)('webhook %s', (state, title) => {
    expect(text(renderConnectResult(connectView({ webhook: { state, detail: null } })))).toContain(title);
  });
});

describe('campaign chooser', () => {
  test('one button per campaign, with its patron count and its page', () => {
    const page = renderChooseCampaign(chooseView());
    expect(headline(page)).toBe('Which campaign should this server follow?');
    expect(page.match(/<button type="submit" class="choice-link">/g)).toHaveLength(2);
    expect(text(page)).toContain('Lumen & Lantern 1,843 patrons View on Patreon');
    expect(text(page)).toContain('Ada Draws Dragons Patron count not shared');
    expect(text(page)).toContain('Ada Lindqvist, your Patreon account runs 2 campaigns.');
  });
});

describe('messages', () => {
  const cases: Array<[string, MessageView, string, string, string]> = [
    [
      'expired link (410)',
      linkExpiredMessage('/link'),
      'One-time link',
      'This link has expired',
      'Run /link again in Discord to get a new link.',
    ],
    [
      'denied consent',
      consentDeniedMessage('/link'),
      '',
      'Nothing was linked',
      'Changed your mind? Run /link again in Discord and choose Allow.',
    ],
    [
      'bad state (400)',
      badStateMessage('/connect'),
      'Security check',
      "This link can't be used",
      'Run /connect again in Discord to get a fresh link.',
    ],
    [
      'another browser (403)',
      otherBrowserMessage('/link'),
      'Not allowed',
      'Start again from Discord',
      'Run /link yourself in Discord and follow the button it gives you, in this browser.',
    ],
    [
      'a used campaign choice (409)',
      choiceRefusedMessage('used'),
      '',
      'Choose again from Discord',
      'Run /connect again in Discord to choose a campaign.',
    ],
    [
      'a campaign chosen by a link (405)',
      chooseByFormMessage(),
      '',
      'Choose on the page',
      'Run /connect again in Discord to get that page.',
    ],
    [
      'service down (502)',
      serviceDownMessage('/link'),
      'Patreon connection',
      "We couldn't reach Patreon",
      'Wait a minute, then run /link again in Discord.',
    ],
  ];

  test.each(cases)('%s', (_, view, eyebrow, title, next) => {
    const page = renderMessage(view);
    expect(headline(page)).toBe(title);
    expect(nextStep(page)).toBe(`Next step ${next}`);
    if (eyebrow) expect(page).toContain(`<p class="eyebrow">${eyebrow}</p>`);
    else expect(page).not.toContain('class="eyebrow"');
    expect(page).toContain(`<title>${escapeHtml(title)} · Tierlink</title>`);
    expect(page).toContain(`<body class="tone-${view.tone}">`);
  });

  test('the status code the server answers with', () => {
    expect(linkExpiredMessage('/link').status).toBe(410);
    expect(badStateMessage('/link').status).toBe(400);
    expect(serviceDownMessage('/link').status).toBe(502);
    expect(consentDeniedMessage('/link').status).toBe(200);
  });

  test('errors show their code; outages say it is not the visitor\u2019s fault', () => {
    const outage = text(renderMessage(serviceDownMessage('/connect')));
    expect(outage).toContain('Nothing you did caused this, and nothing was changed.');
    expect(outage).toContain('Error code 502.');
    expect(outage).toContain('so we could not read your campaign');

    const expired = text(renderMessage(linkExpiredMessage('/connect')));
    expect(expired).toContain('Error code 410.');
    expect(expired).toContain('Links from /connect work once');
    expect(expired).not.toContain('Nothing you did caused this');

    const denied = text(renderMessage(consentDeniedMessage('/connect')));
    expect(denied).not.toContain('Error code');
    expect(denied).toContain('nothing was connected');
  });

  test('an unlisted server error still gets a label', () => {
    expect(renderMessage({ status: 507, tone: 'error', title: 'Oops', message: 'Disk full.', next: null })).toContain(
      '<p class="eyebrow">Unexpected error</p>',
    );
  });

  test('slash commands in the message are set as code', () => {
    expect(renderMessage(linkExpiredMessage('/link'))).toContain('Run <code>/link</code> again in Discord');
  });
});
