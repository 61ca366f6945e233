import type { Doctor } from '../admin/doctor';
import type { MappingService } from '../admin/mapping-service';
import type { SettingsService } from '../admin/settings-service';
import type { ChangeConfirmations } from '../admin/change-confirmations';
import type { RoleAllowances } from '../admin/role-allowances';
import type { TiersService } from '../admin/tiers-service';
import type { GuildPermissions } from '../guild-permissions';
import type { StatusService } from '../linking/status-service';
import type { WebhookRegistration } from '../webhooks/registration';
import type { DiscordUserOAuth } from '../../edges/outbound/discord/user-oauth';
import type { DiscordSignIn } from '../discord-sign-in';
import type { GuildDirectory } from '../../edges/outbound/discord/guild-directory';
import type { GuildSnapshotCache } from '../../edges/outbound/discord/guild-snapshot-cache';
import type { Repositories } from '../../edges/outbound/store/repositories';
import type { SecretBox } from '../../edges/outbound/store/secret-box';
import { type Clock, DAY } from '../../shared/clock';
import type { Logger } from '../../shared/logger';
import { createDashboardAccess } from './access';
import type { AuditBrowser } from './audit';
import { createConfiguration } from './configuration';
import { createMemberLookup } from './members';
import { createMemberList } from './member-list';
import { createOverview } from './overview';
import { createSignIn } from './sign-in';
import type { ChannelSettings } from '../admin/channel-settings';
import { type RunSync, createSyncDesk } from './syncs';
import type { RuleRolesService } from '../admin/rule-roles-service';
import type { CompService } from '../comps/comp-service';
import type { Configuration } from './configuration';
import type { DashboardAccess } from './access';
import type { MemberList } from './member-list';
import type { MemberLookup } from './members';
import type { OverviewService } from './overview';
import type { SignIn } from './sign-in';
import type { SyncDesk } from './syncs';
import { type DeliveryLog, createDeliveryLog } from './deliveries';
import type { DeliveryParser } from '../webhooks/source-delivery';
import type { MemberRolesNow } from '../../edges/outbound/discord/member-roles';

export interface DashboardDeps {
  repos: Pick<
    Repositories,
    | 'guilds'
    | 'campaigns'
    | 'syncRuns'
    | 'auditLog'
    | 'ledger'
    | 'patronDirectory'
    | 'dashboardSessions'
    | 'memberList'
    | 'webhooks'
    | 'links'
    | 'snapshots'
  >;
  discord: {
    directory: GuildDirectory;
    snapshots: GuildSnapshotCache;
    memberRoles?: { peek(guildId: string, userId: string): MemberRolesNow | undefined };
  };
  permissions: GuildPermissions;
  /** The audit log's reader (also `/audit`'s). */
  audit: AuditBrowser;
  admin: {
    tiers: TiersService;
    mapping: MappingService;
    settings: SettingsService;
    /** Confirm and Cancel of a change shown first. */
    confirmations: ChangeConfirmations;
    allowances: RoleAllowances;
    doctor: Pick<Doctor, 'run'>;
    /** The channels Tierlink posts in: what is set, and which channels may be chosen. */
    channelSettings: Pick<ChannelSettings, 'current' | 'postable'>;
    rules: Pick<RuleRolesService, 'list' | 'set' | 'remove'>;
    comps: Pick<CompService, 'grant' | 'revoke' | 'list'>;
  };
  status: StatusService;
  /** Ko-fi's payments (KOFI_VERIFICATION_TOKEN): its supporters who paid and linked no Discord account. */
  kofi?: { unlinkedSince(since: Date, limit: number): Promise<KofiUnlinkedSupporter[]> } | null;
  registration: Pick<WebhookRegistration, 'health'>;
  /** Reads a stored webhook delivery, as the processor does (the Syncs page lists what each said). */
  parseDelivery: DeliveryParser;
  runSync: RunSync;
  /** Discord's OAuth2 for people (DISCORD_CLIENT_SECRET): the server menu reads the person's servers. */
  oauth: DiscordUserOAuth;
  /** The one sign-in with Discord, shared with the pages of `/link` and `/connect`. */
  discordSignIn: DiscordSignIn;
  box: SecretBox;
  clock: Clock;
  logger: Logger;
  publicUrl: () => string;
  /** The server's join page address (the Members page offers it to reach patrons who are not in the server). */
  joinUrl?: (guildId: string) => Promise<string>;
}

/**
 * The creator dashboard's services: sign-in with Discord and sessions, who may enter a
 * server, and the queries and changes behind each page. The pages (src/edges/inbound/web/dashboard) call
 * only these.
 */
/** A Ko-fi supporter who paid and is linked to no Discord account (src/edges/outbound/kofi/payment-store.ts). */
export interface KofiUnlinkedSupporter {
  email: string;
  fromName: string | null;
  tierName: string | null;
  kind: string;
  lastPaidAt: Date;
}

/** How far back the Members page looks for Ko-fi supporters who have not linked, and how many it lists. */
export const KOFI_UNLINKED_DAYS = 62;
export const KOFI_UNLINKED_LIMIT = 50;

export function createDashboard(deps: DashboardDeps): Dashboard {
  const { repos, discord, clock, logger } = deps;
  const signIn = createSignIn({
    discord: deps.discordSignIn,
    oauth: deps.oauth,
    sessions: repos.dashboardSessions,
    box: deps.box,
    clock,
    logger,
    redirectUri: () => `${deps.publicUrl()}/dashboard/callback`,
  });
  const access = createDashboardAccess({
    guilds: repos.guilds,
    permissions: deps.permissions,
    clock: deps.clock,
    ...(deps.discord.memberRoles ? { gateway: deps.discord.memberRoles } : {}),
  });
  const { audit } = deps;
  const memberList = createMemberList({ ...repos, clock, logger });
  const overview = createOverview({
    ...repos,
    members: memberList,
    doctor: deps.admin.doctor,
    webhookHealth: (campaignId) => deps.registration.health(campaignId),
    clock,
    logger,
  });
  const members = createMemberLookup({ ...repos, ...discord, status: deps.status, audit, comps: deps.admin.comps });
  const syncs = createSyncDesk({ ...repos, audit, runSync: deps.runSync, logger });
  const deliveries = createDeliveryLog({ ...repos, parseDelivery: deps.parseDelivery });
  const configuration = createConfiguration({ ...deps.admin, guilds: repos.guilds, snapshots: discord.snapshots });
  return {
    signIn,
    access,
    overview,
    audit,
    members,
    memberList,
    joinUrl: (guildId: string): Promise<string | null> => (deps.joinUrl ? deps.joinUrl(guildId) : Promise.resolve(null)),
    syncs,
    deliveries,
    configuration,
    async kofiUnlinked(guildId: string): Promise<KofiUnlinkedSupporter[] | null> {
      if (!deps.kofi || !(await repos.guilds.campaignsOf(guildId)).includes('kofi')) return null;
      return deps.kofi.unlinkedSince(new Date(clock.now().getTime() - KOFI_UNLINKED_DAYS * DAY), KOFI_UNLINKED_LIMIT);
    },
    comps: deps.admin.comps,
    url: () => `${deps.publicUrl()}/dashboard`,
    secureCookies: () => deps.publicUrl().startsWith('https:'),
    prune: () => repos.dashboardSessions.prune(clock.now()),
  };
}

export interface Dashboard {
  signIn: SignIn;
  access: DashboardAccess;
  overview: OverviewService;
  audit: AuditBrowser;
  members: MemberLookup;
  memberList: MemberList;
  joinUrl(guildId: string): Promise<string | null>;
  syncs: SyncDesk;
  /** Patreon's webhook deliveries of the server's campaigns, on the Syncs page. */
  deliveries: DeliveryLog;
  configuration: Configuration;
  /**
   * The Members page's "paid on Ko-fi, not linked": supporters whose latest payment is from the last
   * {@link KOFI_UNLINKED_DAYS} days, in a server that takes Ko-fi into account; null elsewhere.
   */
  kofiUnlinked(guildId: string): Promise<KofiUnlinkedSupporter[] | null>;
  /** Comps on a member's page, as `/comp` gives and ends them. */
  comps: Pick<CompService, 'grant' | 'revoke' | 'list'>;
  /** Where people reach the dashboard, for the demo and the logs. */
  url(): string;
  /** Whether sessions must be sent over HTTPS only (PUBLIC_URL is https). */
  secureCookies(): boolean;
  /** Drops expired sessions (run from the hourly housekeeping). */
  prune(): Promise<number>;
}
