import { Browser } from '../support/browser';
import { type E2E, pageText, startE2E } from '../support/e2e';
import { EVERYONE, runCommand } from '../support/e2e-admin';

/**
 * The campaign chooser of `/connect`: its ticket was a reusable GET link, logged in clear.
 * Now each choice is a form posting a ticket with a token tied to the flow's cookie; a ticket acts
 * once, never by GET, never from another browser, and is never logged.
 */

let e: E2E;
let side: string;
beforeAll(async () => {
  e = await startE2E({
    beforeStart: ({ patreon }) => {
      side = patreon.createCampaign({ vanity: 'casey-side', creationName: 'a side project' }).id;
    },
  });
}, 60_000);
afterAll(() => e?.stop());

interface Choice {
  action: string;
  ticket: string;
  csrf: string;
}

/** The creator's `/connect` up to the chooser, in `browser`: each campaign's form. */
async function chooser(browser: Browser): Promise<Choice[]> {
  const reply = await runCommand(e, { userId: e.ownerId, name: 'connect', memberPermissions: EVERYONE }).reply();
  const step = await e.followToService(browser, reply.urls[0]!, e.ownerId);
  if (step.kind !== 'service') throw new Error(`the /connect link stopped on a page: ${pageText(step.html)}`);
  const res = await browser.get(await e.patreon.approveAuthorization(step.url, e.patreon.creatorUserId));
  const html = await res.text();
  expect(pageText(html)).toContain('Which campaign should this server follow?');
  const decode = (v: string) => v.replace(/&amp;/g, '&');
  const form =
    /<form method="post" action="([^"]+)"><input type="hidden" name="ticket" value="([^"]+)"><input type="hidden" name="csrf" value="([^"]+)">/g;
  return [...html.matchAll(form)].map((m) => ({ action: decode(m[1]!), ticket: decode(m[2]!), csrf: decode(m[3]!) }));
}

const post = async (browser: Browser, choice: Choice, fields: Partial<Choice> = {}) => {
  const res = await browser.post(`${e.url}${choice.action}`, { ticket: fields.ticket ?? choice.ticket, csrf: fields.csrf ?? choice.csrf });
  return { status: res.status, text: pageText(await res.text()) };
};
const bound = () => e.tierlink.services.repos.guilds.campaignsOf(e.guildId);
const ofCampaign = (choices: Choice[], id: string) => choices.find((c) => c.ticket.includes(`.${id}.`))!;

test('a ticket does nothing by GET, from another browser, or without the page’s token', async () => {
  const creator = new Browser();
  const choices = await chooser(creator);
  expect(choices).toHaveLength(2);
  const main = ofCampaign(choices, e.patreon.campaignId);

  const byGet = await creator.get(`${e.url}/connect/choose?ticket=${encodeURIComponent(main.ticket)}`);
  expect(byGet.status).toBe(405);
  expect(byGet.headers.get('allow')).toBe('POST');
  expect(pageText(await byGet.text())).toContain('A campaign is chosen with the buttons of the page');

  // The ticket and token, posted from a browser without the flow's cookie (a cross-site form, a leak).
  const stranger = new Browser();
  const elsewhere = await post(stranger, main);
  expect(elsewhere.status).toBe(403);
  expect(elsewhere.text).toContain('This choice did not come from the page Tierlink showed in this browser');

  expect((await post(creator, main, { csrf: 'x'.repeat(43) })).status).toBe(403);
  expect((await post(creator, main, { csrf: ofCampaign(choices, side).ticket.split('.').pop()! })).status).toBe(403);
  expect(await bound()).toEqual([]);

  // The creator's own press still works after all that.
  const chosen = await post(creator, main);
  expect(chosen.status).toBe(200);
  expect(chosen.text).toContain('Your campaign is connected');
  expect(await bound()).toEqual([e.patreon.campaignId]);
});

test('a choice acts once: two presses racing bind one campaign once, and the other ticket of the page is spent too', async () => {
  const creator = new Browser();
  const choices = await chooser(creator);
  const other = ofCampaign(choices, side);
  const webhooks = e.patreon.webhooks().length;

  const [a, b] = await Promise.all([post(creator, other), post(creator, other)]);
  expect([a.status, b.status].sort()).toEqual([200, 409]);
  expect([a, b].find((r) => r.status === 409)!.text).toContain('A campaign was already chosen from this page, and a choice works once.');
  expect((await bound()).filter((id) => id === side)).toEqual([side]);
  expect(e.patreon.webhooks().length).toBe(webhooks + 1);

  // The page's other ticket: the flow is over (its cookie is gone), and the choice was used.
  const main = ofCampaign(choices, e.patreon.campaignId);
  expect((await post(creator, main)).status).toBe(403);
});

test('tickets and tokens never reach the logs; a GET carrying one is logged redacted', async () => {
  const creator = new Browser();
  const choices = await chooser(creator);
  await creator.get(`${e.url}/connect/choose?ticket=${encodeURIComponent(choices[0]!.ticket)}&csrf=${choices[0]!.csrf}`);
  await post(creator, choices[0]!);
  const logs = e.log.text();
  for (const choice of choices) {
    expect(logs).not.toContain(choice.ticket.split('.').pop()!);
    expect(logs).not.toContain(choice.csrf);
  }
  expect(logs).toContain('/connect/choose?ticket=%5Bredacted%5D&csrf=%5Bredacted%5D');
});
