import { sql } from 'drizzle-orm';
import { queryRows } from '../../src/edges/outbound/store/database';
import { type DashboardBrowser, signIn } from '../support/dashboard-client';
import { type E2E, pageText, startE2E } from '../support/e2e';
import { MANAGE_ROLES, activePatron, runCommand } from '../support/e2e-admin';
import { eventually } from '../support/eventually';

/**
 * The Syncs page lists Patreon's webhook deliveries of the server's campaign, as they were
 * received and handled: what each said (in Patreon's words for people, with the member's linked
 * Discord account), and a delivery that failed with its error and its next try.
 */

let e: E2E;
let owner: DashboardBrowser;

beforeAll(async () => {
  e = await startE2E({ connected: true });
  ({ browser: owner } = await signIn(e, e.ownerId));
}, 60_000);
afterAll(() => e?.stop());

const syncsPage = async () => {
  const page = await owner.get(`/dashboard/${e.guildId}/syncs`);
  expect(page.status).toBe(200);
  return page;
};

/** The rows of the deliveries table, as text, newest first. */
function deliveryRows(html: string): string[] {
  const section = /<section class="panel" aria-labelledby="deliveries">([\s\S]*?)<\/section>/.exec(html)?.[1] ?? '';
  return [...section.matchAll(/<tr>([\s\S]*?)<\/tr>/g)].slice(1).map((m) => pageText(m[1]!).replace(/\s+/g, ' ').trim());
}

const inbox = () =>
  queryRows<{ status: string; attempts: number; last_error: string | null }>(
    e.db.database.db,
    sql`select status, attempts, last_error from webhook_inbox order by id`,
  );

/** A signed delivery about `memberId` naming a status Tierlink does not know: nothing to act on without a read. */
async function unknownStatusDelivery(memberId: string, patreonUserId: string, fullName: string): Promise<void> {
  const delivered = await e.patreon.deliverRaw({
    webhookId: e.patreon.webhooks()[0]!.id,
    trigger: 'members:pledge:update',
    body: {
      data: {
        type: 'member',
        id: memberId,
        attributes: { patron_status: 'paused_patron', full_name: fullName },
        relationships: {
          campaign: { data: { type: 'campaign', id: e.patreon.campaignId } },
          user: { data: { type: 'user', id: patreonUserId } },
          currently_entitled_tiers: { data: [] },
        },
      },
    },
  });
  expect(delivered.status).toBe(200);
}

const MEMBER_READS = /^\/api\/oauth2\/v2\/members\//;
const doctor = (locale?: string) =>
  runCommand(e, { userId: e.ownerId, name: 'doctor', memberPermissions: MANAGE_ROLES, ...(locale ? { locale } : {}) }).reply();

test('with no delivery yet, the page says so and where to look', async () => {
  const page = await syncsPage();
  expect(pageText(page.html)).toContain('No delivery from Patreon in the last 7 days');
  expect(deliveryRows(page.html)).toEqual([]);
});

test('each delivery, newest first: the event, the member (linked to their page when linked), what Patreon said, and when it was handled', async () => {
  const mira = activePatron(e, 'Mira Okonkwo', [e.tiers.bronze]);
  const miraDiscord = e.discord.addMember(e.guildId, { username: 'mira_ok' }).userId;
  await e.link(miraDiscord, mira.id);
  // Mira moves to Gold; a patron who never linked pledges; the creator publishes a post.
  e.patreon.setMembership(mira.id, e.patreon.campaignId, {
    patronStatus: 'active_patron',
    tierIds: [e.tiers.gold],
    lastChargeDate: e.clock.now(),
    lastChargeStatus: 'Paid',
  });
  await e.discord.waitForMemberRole(e.guildId, miraDiscord, e.roles.gold, { present: true });
  const zora = e.patreon.createUser({ fullName: 'Zora Unlinked' });
  e.patreon.setMembership(zora.id, e.patreon.campaignId, {
    patronStatus: 'declined_patron',
    tierIds: [e.tiers.silver],
    lastChargeDate: e.clock.now(),
    lastChargeStatus: 'Declined',
  });
  e.patreon.publishPost(e.patreon.campaignId, { title: 'Chapter 12', isPublic: true });
  await e.patreon.flushDeliveries();
  await eventually('every delivery handled', async () => (await inbox()).every((r) => r.status === 'done'), 10_000);

  const page = await syncsPage();
  const rows = deliveryRows(page.html);
  expect(rows.length).toBeGreaterThanOrEqual(3);
  expect(rows[0]).toMatch(/new post.*Chapter 12.*handled/);
  expect(rows[1]).toMatch(/Zora Unlinked.*payment declined: Silver.*handled/);
  expect(rows[2]).toMatch(/Mira Okonkwo.*active patron: Gold.*handled/);
  // A linked member links to their page; one who never linked is only named.
  expect(page.html).toContain(`href="/dashboard/${e.guildId}/members/${miraDiscord}">Mira Okonkwo</a>`);
  expect(page.html).not.toMatch(/<a [^>]*>Zora Unlinked<\/a>/);
});

test('a delivery that cannot be handled yet shows its error and its next try, then "handled" once it went through', async () => {
  const ida = activePatron(e, 'Ida Outage', [e.tiers.bronze]);
  const idaDiscord = e.discord.addMember(e.guildId, { username: 'ida' }).userId;
  await e.link(idaDiscord, ida.id);
  const member = e.patreon.setMembership(
    ida.id,
    e.patreon.campaignId,
    { patronStatus: 'active_patron', tierIds: [e.tiers.gold], lastChargeDate: e.clock.now(), lastChargeStatus: 'Paid' },
    { deliver: false },
  );
  // Patreon answers every read of a member with 500, and its delivery names a status Tierlink does
  // not know: nothing to act on until a read goes through.
  const fault = e.patreon.injectFault({ method: 'GET', path: MEMBER_READS, status: 500, times: Infinity });
  const before = (await inbox()).length;
  try {
    await unknownStatusDelivery(member.id, ida.id, 'Ida Outage');
    await eventually(
      'the delivery tried and put back',
      async () => {
        const row = (await inbox())[before];
        return row?.status === 'pending' && Number(row.attempts) >= 1 && row.last_error !== null;
      },
      10_000,
      50,
    );
    const failing = deliveryRows((await syncsPage()).html)[0]!;
    expect(failing).toMatch(/pledge changed.*Ida Outage.*not readable.*retrying/);
    expect(failing).toMatch(/1 try failed; the next at/);
    expect(failing).toMatch(/the next at .* the member re-read failed and the delivery carries no usable member state/);
  } finally {
    e.patreon.removeFault(fault);
  }
  // The next try, once its back-off is over, reads Ida from Patreon.
  await eventually(
    'the delivery handled after the outage',
    async () => {
      e.clock.advance(60_000);
      return (await inbox())[before]?.status === 'done';
    },
    15_000,
  );
  await e.discord.waitForMemberRole(e.guildId, idaDiscord, e.roles.gold, { present: true });
  expect(deliveryRows((await syncsPage()).html)[0]).toMatch(/Ida Outage.*handled/);
});

test('a delivery of another campaign is not listed here', async () => {
  const listed = deliveryRows((await syncsPage()).html).length;
  await e.db.database.db.execute(
    sql`insert into webhook_inbox (trigger, campaign_id, body, status, finished_at)
        values ('members:pledge:create', 'someone-elses-campaign',
                '{"data":{"type":"member","id":"m-x","attributes":{"full_name":"Not Yours","patron_status":"active_patron"}}}',
                'done', now())`,
  );
  const rows = deliveryRows((await syncsPage()).html);
  expect(rows).toHaveLength(listed);
  expect(rows.join('\n')).not.toContain('Not Yours');
});

test("a delivery given up after its last try: the page says so, and /doctor names it with where to look, in the reader's language", async () => {
  expect((await doctor()).content).not.toContain('webhook deliveries');
  const uma = activePatron(e, 'Uma Given-Up', [e.tiers.bronze]);
  const member = e.patreon.memberOf(uma.id, e.patreon.campaignId)!;
  const fault = e.patreon.injectFault({ method: 'GET', path: MEMBER_READS, status: 500, times: Infinity });
  try {
    await unknownStatusDelivery(member.id, uma.id, 'Uma Given-Up');
    // Each try fails; between two tries the clock moves on, until the queue gives up. Each step is
    // past the 5 s in which a second try of one delivery waits for a re-check instead of reading,
    // and under the 2-minute lease of a try the queue may have just claimed: a longer jump would end
    // that lease under it. Steps follow each other until the next try is due.
    await eventually(
      'the delivery given up',
      async () => {
        const [row] = await queryRows<{ status: string; run_at: Date | string; locked_until: Date | string | null }>(
          e.db.database.db,
          sql`select status, run_at, locked_until from webhook_inbox order by id desc limit 1`,
        );
        if (row?.status === 'dead') return true;
        if (row?.locked_until === null) {
          const due = new Date(row.run_at).getTime() - e.clock.now().getTime();
          e.clock.advance(Math.min(Math.max(due, 6_000), 110_000));
        }
        return false;
      },
      30_000,
      50,
    );
  } finally {
    e.patreon.removeFault(fault);
  }
  // Hours went by: the dashboard session from the start of the file has ended.
  ({ browser: owner } = await signIn(e, e.ownerId));
  expect(deliveryRows((await syncsPage()).html)[0]).toMatch(
    /pledge changed Uma Given-Up .*given up after 8 tries; the nightly sync sets this member’s roles/,
  );
  const said = (await doctor()).content;
  expect(said).toMatch(/webhook deliveries/);
  expect(said).toMatch(/Tierlink gave up on 1 of Patreon’s webhook deliveries in the last 7 days/);
  expect(said).toContain('Syncs page');
  const german = (await doctor('de')).content;
  expect(german).toMatch(/Webhook-Zustellungen/);
  expect(german).toMatch(/Tierlink hat 1 Webhook-Zustellung von Patreon in den letzten 7 Tagen aufgegeben/);
  // A week on, it is no longer counted (the page keeps it until the dead letters' retention).
  e.clock.advance(8 * 24 * 60 * 60_000);
  expect((await doctor()).content).not.toContain('webhook deliveries');
});
