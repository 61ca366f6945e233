import type { RoleEvent } from '../discord';
import { DAY, type ShiftableClock } from '../support/clock';
import type { Logger } from '../support/logger';
import { createKofiStandIn } from '../kofi';
import { type Timeline, expectThat, formatMs } from './timeline';
import {
  type DemoService,
  type DemoSyncOutcome,
  type DemoSyncReport,
  type StandIns,
  type StartServiceUnderDemo,
  OWNER_PERMISSIONS,
  plainMessage,
  startService,
  startStandIns,
} from './world';

/** Members the full sync goes over: the campaign's, and as many in the Discord server. */
export const GENERATED_MEMBERS = 5_000;
/**
 * One generated patron in this many has connected the Discord account of a server member on their
 * membership-service profile (the sync links them without a click). Every role change waits on
 * Discord's global limit of 50 requests a second (the real one, kept by @discordjs/rest), so this
 * sets how long the sync takes: one in 20 gives about 200 role changes, 4 to 5 seconds.
 */
export const LINKED_ONE_IN = 20;
/** Days the clock jumps to pass the default 7-day grace period. */
export const DAYS_SKIPPED = 8;

/** What the story built; whoever started it stops it, whether the story finished or not. */
export interface StoryResources {
  world?: StandIns;
  service?: DemoService;
}

export interface StoryEnvironment {
  clock: ShiftableClock;
  /** The service's and the stand-ins' logger (a file: never on the timeline). */
  logger: Logger;
  dataDir: string;
  /** Starts the service under demonstration (the product's wiring, passed in). */
  startService: StartServiceUnderDemo;
}

const MEMBER_TRIGGER_UPGRADE = 'members:pledge:update';
const MEMBER_TRIGGER_UPDATE = 'members:update';

type Change = DemoSyncReport['guilds'][number]['changes'][number];

const changeText = (c: Change) => `${c.op === 'add' ? '+' : c.op === 'remove' ? '−' : '~'} ${c.roleName ?? c.roleId}: ${c.reason}`;

function reportOf(outcome: DemoSyncOutcome, what: string): { report: DemoSyncReport; text: string } {
  expectThat(!('skipped' in outcome), `${what} was skipped: ${'skipped' in outcome ? outcome.skipped : ''}`);
  return outcome;
}

/**
 * The whole story, step by step, each step checking its outcome (a wrong one stops the demo with
 * a non-zero exit): stand-ins and service start, the creator connects, a patron links, upgrades,
 * is declined, lapses after the grace period, then a dry run and a full sync over
 * {@link GENERATED_MEMBERS} members, and a role given by hand survives; last, when the service runs
 * its dashboard, the owner signs in with Discord and a member without the permissions is refused,
 * and a Gold patron in no server joins through the join page while someone without a pledge is refused.
 */
export async function playStory(timeline: Timeline, env: StoryEnvironment, resources: StoryResources): Promise<void> {
  const { clock } = env;

  // ── Setting up ──────────────────────────────────────────────────────────────────────────────
  timeline.section('Setting up');
  const world = await timeline.step('Stand-ins started: the membership service and Discord', async (s) => {
    const started = await startStandIns(clock, env.logger);
    resources.world = started;
    s.detail(`membership service ${started.patreon.url}  (campaign ${started.patreon.campaignId}: tiers Gold $10, Platinum $25)`);
    s.detail(`Discord             ${started.discord.baseUrl}  (server “${started.guildName}”: roles Gold, Platinum, Former Patron)`);
    return started;
  });
  const { patreon, discord, guildId, roles, tiers, ada } = world;
  const roleNames = new Map(discord.guild(guildId).roles.map((r) => [r.id, r.name] as const));
  const nameOf = (roleId: string) => roleNames.get(roleId) ?? roleId;
  const rolesOf = (userId: string) => discord.memberRoles(guildId, userId);
  const has = (userId: string, roleId: string) => rolesOf(userId).includes(roleId);
  const events = () => discord.roleEvents();
  const describeEvent = (e: RoleEvent) => `${e.op === 'add' ? '+' : '−'} ${nameOf(e.roleId)}  audit log: “${e.reason ?? 'no reason'}”`;

  const service = await timeline.step('Tierlink started: the real service, zero configuration', async (s) => {
    const started = await startService(world, env.startService, { dataDir: env.dataDir, logger: env.logger });
    resources.service = started;
    s.detail(`web ${started.url}, embedded PGlite database, discord.js on the stand-in’s gateway`);
    s.detail(`${discord.commands(guildId).length} slash commands registered on the server`);
    return started;
  });

  // ── The creator ─────────────────────────────────────────────────────────────────────────────
  timeline.section('A creator connects');
  await timeline.step('Casey runs /connect, signs in on the membership service, allows', async (s) => {
    const reply = await service.command(world.owner.discordId, 'connect', { permissions: OWNER_PERMISSIONS });
    const button = reply.urls[0];
    expectThat(button !== undefined, `/connect answered without a link: ${reply.content}`);
    const page = await service.followLink(button, world.owner.discordId, patreon.creatorUserId);
    expectThat(page.status === 200, `the connect result page answered ${page.status}: ${page.text.slice(0, 200)}`);
    const webhook = patreon.webhooks().find((w) => w.uri === `${service.url}/webhooks/patreon`);
    expectThat(webhook !== undefined, 'no webhook was registered at the service’s address');
    const bound = await service.campaignsOf(guildId);
    expectThat(bound.includes(patreon.campaignId), `the campaign was not bound to the server (bound: ${bound.join(', ') || 'none'})`);
    s.detail(`campaign ${patreon.campaignId} now serves “${world.guildName}”; tiers read: Gold → @Gold, Platinum → @Platinum`);
    s.detail(`webhook ${webhook.id} registered for ${webhook.triggers.length} triggers (member changes, new posts) at ${webhook.uri}`);
  });
  await timeline.step('Casey runs /settings former_role:@Former Patron', async (s) => {
    const reply = await service.command(world.owner.discordId, 'settings', {
      permissions: OWNER_PERMISSIONS,
      options: [{ name: 'former_role', type: 8, value: roles.formerPatron }],
      until: (content) => !content.includes('Updating members’ roles…'),
    });
    expectThat(reply.content.startsWith('**Settings saved**'), `/settings answered: ${reply.content}`);
    const saved = plainMessage(reply.content, roleNames).split('\n');
    for (const line of saved.filter((l) => /Grace period|Former-patron role/.test(l))) s.detail(line.replace(/^•\s*/, ''));
  });

  // ── A patron ────────────────────────────────────────────────────────────────────────────────
  timeline.section('A patron links, upgrades, is declined, and lapses');
  await timeline.step('Ada (a Gold patron) runs /link, signs in, allows', async (s) => {
    const reply = await service.command(ada.discordId, 'link');
    const button = reply.urls[0];
    expectThat(button !== undefined, `/link answered without a link: ${reply.content}`);
    const clicked = performance.now();
    const page = await service.followLink(button, ada.discordId, ada.patreonUserId);
    const pageMs = performance.now() - clicked;
    expectThat(page.status === 200, `the link result page answered ${page.status}: ${page.text.slice(0, 200)}`);
    expectThat(has(ada.discordId, roles.gold), 'Ada does not hold Gold after the link page loaded');
    s.title(`Ada runs /link and allows → Gold before the page loads (${formatMs(pageMs)})`);
    s.detail(`result page: “${page.text.match(/Ada Lovelace[^.]*\./)?.[0] ?? page.text.slice(0, 80)}”`);
    const grant = events()
      .filter((e) => e.userId === ada.discordId && e.roleId === roles.gold)
      .at(-1);
    if (grant) s.detail(describeEvent(grant));
  });

  await timeline.step('Ada upgrades to Platinum on the membership service', async (s) => {
    const before = events().length;
    const changed = performance.now();
    patreon.setMembership(
      ada.patreonUserId,
      patreon.campaignId,
      { patronStatus: 'active_patron', tierIds: [tiers.platinum], lastChargeDate: clock.now(), lastChargeStatus: 'Paid' },
      { trigger: MEMBER_TRIGGER_UPGRADE },
    );
    await discord.waitForMemberRole(guildId, ada.discordId, roles.platinum, { present: true, timeoutMs: 10_000 });
    const platinumMs = performance.now() - changed;
    await discord.waitForMemberRole(guildId, ada.discordId, roles.gold, { present: false, timeoutMs: 10_000 });
    s.title(`Ada upgrades to Platinum → Platinum in ${formatMs(platinumMs)}, Gold removed`);
    s.detail(`webhook ${MEMBER_TRIGGER_UPGRADE} → signature checked, stored → member re-read → roles changed`);
    for (const e of events()
      .slice(before)
      .filter((e) => e.userId === ada.discordId))
      s.detail(describeEvent(e));
  });

  await timeline.step('Ada’s payment is declined', async (s) => {
    const before = events().length;
    const changed = performance.now();
    // The service may list no entitled tiers for a declined member (docs/architecture.md): Tierlink keeps the last seen.
    patreon.setMembership(
      ada.patreonUserId,
      patreon.campaignId,
      { patronStatus: 'declined_patron', tierIds: [], lastChargeDate: clock.now(), lastChargeStatus: 'Declined' },
      { trigger: MEMBER_TRIGGER_UPDATE },
    );
    await service.waitForInbox();
    const processedMs = performance.now() - changed;
    expectThat(has(ada.discordId, roles.platinum), 'Ada lost Platinum at once; the grace period should keep it');
    expectThat(
      events()
        .slice(before)
        .every((e) => e.userId !== ada.discordId),
      'Ada’s roles changed although the grace period keeps them',
    );
    const status = plainMessage((await service.command(ada.discordId, 'status')).content, roleNames);
    const standing = status.split('\n').find((l) => l.includes('grace period'));
    expectThat(standing !== undefined, `/status does not mention the grace period:\n${status}`);
    s.title(`Ada’s payment is declined → webhook done in ${formatMs(processedMs)}, Platinum stays`);
    s.detail(`/status: ${standing}`);
  });

  clock.advance(DAYS_SKIPPED * DAY);
  timeline.event(`${DAYS_SKIPPED} days pass (the shared clock jumps; real time does not)`, [
    `now ${clock.now().toISOString().slice(0, 16).replace('T', ' ')} UTC for the service and both stand-ins`,
  ]);

  await timeline.step(`The nightly sync runs, ${DAYS_SKIPPED} days after the decline`, async (s) => {
    // What the SYNC_SCHEDULE cron job runs: nothing tells the service that a grace period ended.
    const { report } = reportOf(await service.sync('nightly'), 'the nightly sync');
    await discord.waitForMemberRole(guildId, ada.discordId, roles.formerPatron, { present: true, timeoutMs: 10_000 });
    expectThat(!has(ada.discordId, roles.platinum), 'Ada still holds Platinum after the grace period');
    const changes = report.guilds.flatMap((g) => g.changes).filter((c) => c.userId === ada.discordId);
    s.title(`The nightly sync, ${DAYS_SKIPPED} days later → Platinum goes, Former Patron comes`);
    s.detail('no event marks the end of a grace period: the SYNC_SCHEDULE run (04:00) re-plans every linked member');
    for (const c of changes) s.detail(changeText(c));
  });

  // ── Ko-fi ───────────────────────────────────────────────────────────────────────────────────
  timeline.section('A Ko-fi supporter');
  await timeline.step('Casey runs /map tier:kofi:* role:@Ko-fi Supporter (any Ko-fi membership)', async (s) => {
    const reply = await service.command(world.owner.discordId, 'map', {
      permissions: OWNER_PERMISSIONS,
      options: [
        { name: 'tier', type: 3, value: 'kofi:*' },
        { name: 'role', type: 8, value: roles.kofi },
      ],
      until: (content) => !content.includes('Updating members’ roles…'),
    });
    expectThat(/now grants/.test(reply.content), `/map answered: ${reply.content}`);
    s.detail(plainMessage(reply.content, roleNames).split('\n')[0]!);
  });
  await timeline.step('Finn subscribes on Ko-fi, his Discord connected there', async (s) => {
    const { finn, token } = world.kofi;
    const kofi = createKofiStandIn({ webhookUrl: `${service.url}/webhooks/kofi`, verificationToken: token, clock });
    const paid = performance.now();
    const attempt = await kofi.pay({
      email: finn.email,
      fromName: 'Finn',
      tierName: 'Coffee Club',
      amount: '5.00',
      discordUserId: finn.discordId,
    });
    expectThat(attempt.status === 200, `POST /webhooks/kofi answered ${attempt.status}: ${attempt.body}`);
    await discord.waitForMemberRole(guildId, finn.discordId, roles.kofi, { present: true, timeoutMs: 10_000 });
    const ms = performance.now() - paid;
    const again = await kofi.deliver(attempt.data);
    expectThat(again.status === 200, `the same payment again answered ${again.status}`);
    const status = plainMessage((await service.command(finn.discordId, 'status')).content, roleNames);
    const line = status.split('\n').find((l) => l.includes('Ko-fi'));
    expectThat(line !== undefined, `/status does not name Ko-fi:\n${status}`);
    s.title(`Finn pays a Ko-fi membership → Ko-fi Supporter in ${formatMs(ms)}`);
    s.detail('Ko-fi’s form body, token checked in constant time, stored once by message_id, linked by his Discord id');
    s.detail(`the same payment delivered again: 200, nothing changes; /status: ${line.trim()}`);
  });

  // ── Scale ───────────────────────────────────────────────────────────────────────────────────
  timeline.section(`A nightly sync over ${GENERATED_MEMBERS.toLocaleString('en-US')} members`);
  const sam = await timeline.step(
    `${GENERATED_MEMBERS.toLocaleString('en-US')} patrons and ${GENERATED_MEMBERS.toLocaleString('en-US')} server members generated`,
    async (s) => {
      const { userIds } = discord.generateGuild({ guildId, members: GENERATED_MEMBERS, seed: 7 });
      patreon.generateMembers({
        campaignId: patreon.campaignId,
        count: GENERATED_MEMBERS,
        seed: 7,
        discordUserIdFor: (i) => (i % LINKED_ONE_IN === 0 ? (userIds[i / LINKED_ONE_IN] ?? null) : null),
      });
      // Sam: a former patron whose Discord is on his profile; a moderator gave him Gold by hand.
      const samMember = discord.addMember(guildId, { username: 'sam' });
      const samPatreon = patreon.createUser({ fullName: 'Sam Rivera', discordUserId: samMember.userId });
      const lastPaid = new Date(clock.now().getTime() - 120 * DAY);
      patreon.setMembership(
        samPatreon.id,
        patreon.campaignId,
        { patronStatus: 'former_patron', tierIds: [], lastChargeDate: lastPaid, lastChargeStatus: 'Paid' },
        { deliver: false },
      );
      discord.setMemberRolesByHand(guildId, samMember.userId, [roles.gold]);
      s.detail(`1 patron in ${LINKED_ONE_IN} has the Discord account of a server member on their profile (no /link needed)`);
      s.detail('Sam, a former patron with his Discord on his profile, holds Gold: a moderator gave it by hand');
      return { discordId: samMember.userId };
    },
  );

  const dryRun = await timeline.step('Dry run (npm run sync -- --dry-run): what the sync would do', async (s) => {
    const before = events().length;
    const { report, text } = reportOf(await service.sync('dry-run'), 'the dry run');
    expectThat(events().length === before, 'the dry run changed roles');
    const guild = report.guilds.find((g) => g.guildId === guildId);
    expectThat(guild !== undefined && guild.planned.adds > 0, 'the dry run planned no role for the generated patrons');
    s.block(text);
    const samPlan = guild.changes.filter((c) => c.userId === sam.discordId);
    expectThat(!samPlan.some((c) => c.roleId === roles.gold), 'the dry run plans to take Sam’s hand-given Gold');
    s.detail(`Sam: ${samPlan.map(changeText).join('; ') || 'no change'}; his Gold is not in the plan`);
    return guild;
  });

  await timeline.step('The nightly sync applies it', async (s) => {
    const { report, text } = reportOf(await service.sync('nightly'), 'the nightly sync');
    const guild = report.guilds.find((g) => g.guildId === guildId);
    expectThat(
      report.status === 'ok' && guild !== undefined,
      `the sync ended ${report.status}: ${[...report.errors, ...(guild?.errors ?? [])].join('; ')}`,
    );
    expectThat(
      guild.applied.adds === dryRun.planned.adds,
      `the sync added ${guild.applied.adds} roles; the dry run planned ${dryRun.planned.adds}`,
    );
    expectThat(guild.failed === 0, `${guild.failed} role changes failed`);
    s.title(`The nightly sync applies it → ${guild.applied.adds.toLocaleString('en-US')} roles added`);
    s.block(text);
  });

  await timeline.step('Sam keeps the Gold a moderator gave him', async (s) => {
    const granted = await service.grantedRoleIds(guildId, sam.discordId);
    expectThat(has(sam.discordId, roles.gold), 'Sam lost the Gold role a moderator gave him');
    expectThat(!granted.includes(roles.gold), 'the ledger says Tierlink granted Sam’s Gold');
    expectThat(has(sam.discordId, roles.formerPatron), 'Sam did not get the former-patron role');
    s.title('Sam keeps the Gold a moderator gave him: Tierlink never granted it');
    s.detail(`Sam is not entitled to Gold (former patron), yet no sync removed it; Ada’s Platinum, which Tierlink granted, went`);
    s.detail(
      `Tierlink’s grants to Sam: ${granted.map(nameOf).join(', ') || 'none'}; his roles: ${rolesOf(sam.discordId).map(nameOf).join(', ')}`,
    );
  });

  // ── The dashboard ──────────────────────────────────────────────────────────────────────────
  if (service.dashboardUrl) {
    timeline.section('The dashboard');
    await timeline.step('Casey signs in to the dashboard with Discord and opens the server', async (s) => {
      const overview = await service.dashboardPage(world.owner.discordId, `/dashboard/${guildId}`);
      expectThat(overview.status === 200, `the overview answered ${overview.status}: ${overview.text.slice(0, 200)}`);
      expectThat(overview.text.includes('Role changes per day'), 'the overview shows no chart of role changes');
      const held = /(?:Tierlink|It) holds ([\d,]+) roles? in this server/.exec(overview.text)?.[1];
      s.detail(
        `Overview: ${/(Everything Tierlink needs is in place|[\d,]+ problems? to fix)/.exec(overview.text)?.[1] ?? 'checks shown'}; ${held ?? '?'} roles held by Tierlink`,
      );
      const audit = await service.dashboardPage(world.owner.discordId, `/dashboard/${guildId}/audit?member=${world.ada.discordId}`);
      expectThat(audit.status === 200 && audit.text.includes('took away @Platinum'), 'the audit log does not show Ada’s Platinum going');
      s.detail('Audit log, filtered to Ada: her Gold, Platinum and Former Patron, each with its reason');
    });
    await timeline.step('Sam, a member without Manage Server or Manage Roles, is refused', async (s) => {
      const page = await service.dashboardPage(sam.discordId, `/dashboard/${guildId}`);
      expectThat(page.status === 403, `the dashboard let Sam in (${page.status})`);
      s.detail('403: managing the server needs Manage Server or Manage Roles there, read from Discord on every page');
    });

    // ── The join page ────────────────────────────────────────────────────────────────────────
    timeline.section('The join page');
    const { cleo, dan } = world;
    const joinUrl = await timeline.step('Casey runs /settings join_slug:caseys-fan-club', async (s) => {
      const reply = await service.command(world.owner.discordId, 'settings', {
        permissions: OWNER_PERMISSIONS,
        options: [{ name: 'join_slug', type: 3, value: 'caseys-fan-club' }],
        until: (content) => !content.includes('Updating members’ roles…'),
      });
      const line = plainMessage(reply.content, roleNames)
        .split('\n')
        .find((l) => l.includes('Join page'));
      expectThat(line?.includes(`${service.url}/join/caseys-fan-club`) === true, `/settings answered: ${reply.content}`);
      s.detail(`${line!.replace(/^•\s*/, '')}: the link Casey puts in the Gold tier’s welcome note`);
      return `${service.url}/join/caseys-fan-club`;
    });
    await timeline.step('Cleo, a Gold patron in no server, opens the join link and signs in to both', async (s) => {
      expectThat(!discord.members(guildId).some((m) => m.userId === cleo.discordId), 'Cleo is in the server before joining');
      const opened = performance.now();
      const page = await service.joinPage('caseys-fan-club', cleo.patreonUserId, cleo.discordId);
      const ms = performance.now() - opened;
      expectThat(page.status === 200, `the join page ended ${page.status}: ${page.text.slice(0, 200)}`);
      expectThat(has(cleo.discordId, roles.gold), 'Cleo is not in the server with Gold after the join');
      const granted = await service.grantedRoleIds(guildId, cleo.discordId);
      expectThat(granted.includes(roles.gold), 'the ledger does not record Cleo’s Gold');
      const adds = discord.requests({ route: 'PUT /guilds/:g/members/:u' }).length;
      s.title(`Cleo joins through ${joinUrl} → in the server with Gold (${formatMs(ms)})`);
      s.detail(`result page: “${page.text.match(/You’re in [^!.]*/)?.[0] ?? page.text.slice(0, 80)}”`);
      s.detail(`${adds} Add Guild Member request carried the role; Discord’s token for it was revoked right after, never stored`);
    });
    await timeline.step('Dan, with no pledge, tries the join link', async (s) => {
      const page = await service.joinPage('caseys-fan-club', dan.patreonUserId, dan.discordId);
      expectThat(page.status === 403 && !page.askedDiscord, `the join page let Dan through (${page.status})`);
      expectThat(!discord.members(guildId).some((m) => m.userId === dan.discordId), 'Dan was added to the server');
      s.detail(
        `403 before Discord is asked: “${page.text.match(/Joining is for patrons/)?.[0] ?? page.text.slice(0, 80)}”, with the pledge link`,
      );
    });
  }
}
