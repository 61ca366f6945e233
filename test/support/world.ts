import { type ManualClock, createManualClock } from '@tierlink/sandbox';
import { createDiscordSandbox } from '@tierlink/sandbox/discord';
import { campaignName, storeCampaign } from '../../src/app/admin/campaign-catalog';
import type { CreatorAccounts } from '../../src/edges/outbound/patreon/creator-accounts';
import { createMembershipServiceSandbox } from '@tierlink/sandbox/membership-service';
import type { MembershipServiceSandbox } from '@tierlink/sandbox/membership-service';
import { type Metrics, createMetrics } from '../../src/edges/outbound/observability/metrics';
import type { Reconciler } from '../../src/app/sync/reconciler';
import type { MemberIntake } from '../../src/app/membership/member-intake';
import type { Services } from '../../src/compose';
import type { DiscordKit } from './discord-kit';
import { UNPACED_PATREON, raisedDiscord, raisedPatreon } from './raised-limits';
import { TEST_SECRET_KEY, type repositories } from './service-fixtures';
import { serviceOver } from './service-over';
import { type TestDatabase, createTestDatabase } from './test-database';

/**
 * One realistic setup for integration tests: both stand-ins over real HTTP, a real database, a
 * creator connected with the sandbox's creator tokens, a campaign with Bronze/Silver/Gold tiers
 * whose `chat_role_ids` name roles of a Discord guild that serves the campaign, and Tierlink's
 * services built over all of it by the composition root (src/compose.ts), as `npm start` builds
 * them, without the gateway and the web server. Call `reset()` in `beforeEach`.
 */
export interface World {
  clock: ManualClock;
  db: TestDatabase;
  patreon: MembershipServiceSandbox;
  /** The Discord stand-in, and the services' own Discord client (rebuilt by `reset()`). */
  discord: DiscordKit;
  /** The services of this world's instance, rebuilt by `reset()`. */
  services: Services;
  repos: ReturnType<typeof repositories>;
  accounts: CreatorAccounts;
  reconciler: Reconciler;
  /** The one intake of read members (src/app/membership/member-intake.ts), wired to the reconciler. */
  intake: MemberIntake;
  metrics: Metrics;
  /** Set by reset(). */
  guildId: string;
  campaignId: string;
  tiers: { bronze: string; silver: string; gold: string };
  roles: { bronze: string; silver: string; gold: string; staff: string };
  /** A member of the campaign (on the service) who is also a member of the guild; not linked. */
  addPatron(options?: PatronOptions): PatronIds;
  /** The same, linked through OAuth as `/link` would. */
  addLinkedPatron(options?: PatronOptions): Promise<PatronIds>;
  reset(): Promise<void>;
  /** Runs `fn` when the world closes (another instance's services built beside this one). */
  onClose(fn: () => Promise<void>): void;
  close(): Promise<void>;
}

export interface PatronOptions {
  tier?: 'bronze' | 'silver' | 'gold' | null;
  /** The service user carries the Discord id in `social_connections`. */
  socialDiscord?: boolean;
  status?: 'active_patron' | 'declined_patron' | 'former_patron' | null;
}

export interface PatronIds {
  patreonUserId: string;
  discordUserId: string;
  memberId: string;
}

/** The key credentials are sealed with (the same as the fixtures'). */
export const SECRET_KEY = TEST_SECRET_KEY;

/**
 * `raisedLimits`: why the stand-ins' limits are raised (and Tierlink's own pacing with them) for
 * this file; the real services' limits when absent.
 */
export async function createWorld(options: { raisedLimits?: string } = {}): Promise<World> {
  const clock = createManualClock(new Date('2026-11-20T12:00:00Z'));
  const db = await createTestDatabase();
  const { raisedLimits } = options;
  const patreon = await createMembershipServiceSandbox({ clock, ...(raisedLimits ? raisedPatreon(raisedLimits) : {}) });
  const sandbox = await createDiscordSandbox(raisedLimits ? raisedDiscord(raisedLimits) : {});
  const metrics = createMetrics({ defaultMetrics: false });
  let counter = 0;

  const world = {
    clock,
    db,
    patreon,
    metrics,
    guildId: '',
    campaignId: patreon.campaignId,
    tiers: { bronze: '', silver: '', gold: '' },
    roles: { bronze: '', silver: '', gold: '', staff: '' },
  } as World;

  world.reset = async () => {
    await db.reset();
    const earlier = world.services;
    world.services = serviceOver({ patreon, discord: sandbox, raisedLimits }, db.database, {
      clock,
      metrics,
      // A guild's roles read afresh every time: tests change them on the stand-in between steps.
      discordAccess: { snapshotTtlMs: 0 },
      // One process whose database is reset: its Discord client and its count of Discord's limits carry over.
      ...(earlier ? { discord: { access: earlier.discord, budget: earlier.discordBudget, meter: earlier.meter } } : {}),
      ...(raisedLimits ? { patreonLimits: UNPACED_PATREON } : {}),
    });
    const { directory, snapshots, memberRoles, writer } = world.services.discord;
    world.discord = { sandbox, raisedLimits, directory, snapshots, memberRoles, writer, close: () => sandbox.close() };
    world.repos = world.services.repos;
    world.accounts = world.services.accounts;
    const { discord } = world;
    const g = discord.sandbox.createGuild({ name: `Fan Club ${++counter}` });
    world.guildId = g.guildId;
    const role = (name: string) => discord.sandbox.createRole(g.guildId, { name, position: 1 }).id;
    world.roles = { bronze: role('Bronze'), silver: role('Silver'), gold: role('Gold'), staff: role('Staff') };
    const tier = (title: string, amountCents: number, roleId: string) =>
      patreon.createTier(patreon.campaignId, { title: `${title} ${counter}`, amountCents, chatRoleIds: [roleId] }).id;
    world.tiers = {
      bronze: tier('Bronze', 300, world.roles.bronze),
      silver: tier('Silver', 500, world.roles.silver),
      gold: tier('Gold', 1000, world.roles.gold),
    };
    const connected = await world.accounts.connect({
      accessToken: patreon.creatorTokens.accessToken,
      refreshToken: patreon.creatorTokens.refreshToken,
      expiresAt: new Date(clock.now().getTime() + patreon.creatorTokens.expiresIn * 1000),
      scopes: patreon.creatorTokens.scopes,
    });
    const details = await connected.client.getCampaign(patreon.campaignId);
    expect(campaignName(details)).toBeTruthy();
    await storeCampaign({ campaigns: world.repos.campaigns, clock }, connected.creatorUserId, details);
    await world.repos.guilds.ensure(g.guildId, `Fan Club ${counter}`);
    await world.repos.guilds.bind(g.guildId, patreon.campaignId);
    world.reconciler = world.services.reconciler;
    world.intake = world.services.sync.intake;
    patreon.resetRequests();
    discord.sandbox.resetRequests();
  };

  world.addPatron = (options = {}) => {
    const n = ++counter;
    const discordUserId = sandbox.addMember(world.guildId, { username: `patron${n}` }).userId;
    const user = patreon.createUser({ fullName: `Patron ${n}`, ...(options.socialDiscord ? { discordUserId } : {}) });
    const tierKey = options.tier === undefined ? 'gold' : options.tier;
    const member = patreon.setMembership(
      user.id,
      patreon.campaignId,
      {
        patronStatus: options.status === undefined ? 'active_patron' : options.status,
        tierIds: tierKey ? [world.tiers[tierKey]] : [],
        lastChargeDate: clock.now(),
        lastChargeStatus: 'Paid',
      },
      { deliver: false },
    );
    return { patreonUserId: user.id, discordUserId, memberId: member.id };
  };

  /** `addPatron` and, when `linked`, an OAuth link stored as /link would. */
  world.addLinkedPatron = async (options = {}) => {
    const patron = world.addPatron(options);
    await world.repos.links.linkOauth('patreon', patron.discordUserId, patron.patreonUserId, clock.now());
    return patron;
  };

  const closers: Array<() => Promise<void>> = [];
  world.onClose = (fn) => void closers.push(fn);
  world.close = async () => {
    for (const fn of closers.splice(0)) await fn();
    await world.services?.discordBudget?.close?.();
    await sandbox.close();
    await patreon.close();
    await db.close();
  };
  await world.reset();
  return world;
}
