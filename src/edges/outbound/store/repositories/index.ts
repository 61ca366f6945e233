import type { SecretBox } from '../secret-box';
import type { Db } from '../database';
import { type AppStateRepository, createAppStateRepository } from './app-state-repository';
import { type AuditLogRepository, createAuditLogRepository } from './audit-log-repository';
import { type DashboardSessionRepository, createDashboardSessionRepository } from './dashboard-session-repository';
import { type PatronDirectoryRepository, createPatronDirectoryRepository } from './patron-directory-repository';
import { type CampaignRepository, createCampaignRepository } from './campaign-repository';
import { type CredentialRepository, createCredentialRepository } from './credential-repository';
import { type GuildRepository, createGuildRepository } from './guild-repository';
import { type LedgerRepository, createLedgerRepository } from './ledger-repository';
import { type LinkRepository, createLinkRepository } from './link-repository';
import { type LinkTokenRepository, createLinkTokenRepository } from './link-token-repository';
import { type MappingRepository, createMappingRepository } from './mapping-repository';
import { type SnapshotRepository, createSnapshotRepository } from './snapshot-repository';
import { type SyncRunRepository, createSyncRunRepository } from './sync-run-repository';
import { type WebhookRepository, createWebhookRepository } from './webhook-repository';
import { type ChannelOutboxRepository, createChannelOutboxRepository } from './channel-outbox-repository';
import { type CompRepository, createCompRepository } from './comp-repository';
import { type RuleRoleRepository, createRuleRoleRepository } from './rule-role-repository';
import { type RoleAllowanceRepository, createRoleAllowanceRepository } from './role-allowance-repository';
import { type MemberListRepository, createMemberListRepository } from './member-list-repository';
import { type MemberPreferenceRepository, createMemberPreferenceRepository } from './member-preference-repository';
import { type DirectMessageRepository, createDirectMessageRepository } from './direct-message-repository';
import { type PendingChangeRepository, createPendingChangeRepository } from './pending-change-repository';

/** Every repository over one database. */
export interface Repositories {
  guilds: GuildRepository;
  campaigns: CampaignRepository;
  mappings: MappingRepository;
  // Comps and the roles by tenure and amount.
  comps: CompRepository;
  ruleRoles: RuleRoleRepository;
  links: LinkRepository;
  snapshots: SnapshotRepository;
  ledger: LedgerRepository;
  credentials: CredentialRepository;
  linkTokens: LinkTokenRepository;
  appState: AppStateRepository;
  syncRuns: SyncRunRepository;
  webhooks: WebhookRepository;
  // The dashboard's reads and sessions.
  auditLog: AuditLogRepository;
  patronDirectory: PatronDirectoryRepository;
  memberList: MemberListRepository;
  // Each person's own choices (/privacy).
  memberPreferences: MemberPreferenceRepository;
  dashboardSessions: DashboardSessionRepository;
  // The mod-log and the announcements (src/app/channels).
  channelOutbox: ChannelOutboxRepository;
  // Direct messages to patrons about their membership (src/app/membership/patron-messages.ts).
  directMessages: DirectMessageRepository;
  // Roles with dangerous permissions the owner or an administrator allowed (src/app/admin/role-allowances.ts).
  roleAllowances: RoleAllowanceRepository;
  // Changes shown first and waiting for a confirmation (src/app/admin/pending-changes.ts).
  pendingChanges: PendingChangeRepository;
}

/** The secret box seals credentials and webhook secrets. */
export function createRepositories(db: Db, box: SecretBox): Repositories {
  return {
    guilds: createGuildRepository(db),
    campaigns: createCampaignRepository(db),
    mappings: createMappingRepository(db),
    // Comps and the roles by tenure and amount.
    comps: createCompRepository(db),
    ruleRoles: createRuleRoleRepository(db),
    links: createLinkRepository(db),
    snapshots: createSnapshotRepository(db),
    ledger: createLedgerRepository(db),
    credentials: createCredentialRepository(db, box),
    linkTokens: createLinkTokenRepository(db),
    appState: createAppStateRepository(db),
    syncRuns: createSyncRunRepository(db),
    webhooks: createWebhookRepository(db, box),
    // The dashboard's reads and sessions.
    auditLog: createAuditLogRepository(db),
    patronDirectory: createPatronDirectoryRepository(db),
    memberList: createMemberListRepository(db),
    // Each person's own choices (/privacy).
    memberPreferences: createMemberPreferenceRepository(db),
    dashboardSessions: createDashboardSessionRepository(db),
    // The mod-log and the announcements (src/app/channels).
    channelOutbox: createChannelOutboxRepository(db),
    // Direct messages to patrons about their membership (src/app/membership/patron-messages.ts).
    directMessages: createDirectMessageRepository(db),
    pendingChanges: createPendingChangeRepository(db),
    // Roles with dangerous permissions the owner or an administrator allowed (src/app/admin/role-allowances.ts).
    roleAllowances: createRoleAllowanceRepository(db),
  };
}
