import type { SecretBox } from '../secret-box';
import type { Db } from '../database';
import { createAppStateRepository } from './app-state-repository';
import { createAuditLogRepository } from './audit-log-repository';
import { createDashboardSessionRepository } from './dashboard-session-repository';
import { createPatronDirectoryRepository } from './patron-directory-repository';
import { createCampaignRepository } from './campaign-repository';
import { createCredentialRepository } from './credential-repository';
import { createGuildRepository } from './guild-repository';
import { createLedgerRepository } from './ledger-repository';
import { createLinkRepository } from './link-repository';
import { createLinkTokenRepository } from './link-token-repository';
import { createMappingRepository } from './mapping-repository';
import { createSnapshotRepository } from './snapshot-repository';
import { createSyncRunRepository } from './sync-run-repository';
import { createWebhookRepository } from './webhook-repository';
import { createChannelOutboxRepository } from './channel-outbox-repository';
import { createCompRepository } from './comp-repository';
import { createRuleRoleRepository } from './rule-role-repository';
import { createRoleAllowanceRepository } from './role-allowance-repository';
import { createMemberListRepository } from './member-list-repository';
import { createMemberPreferenceRepository } from './member-preference-repository';
import { createDirectMessageRepository } from './direct-message-repository';
import { createPendingChangeRepository } from './pending-change-repository';

/** Every repository over one database; the secret box seals credentials and webhook secrets. */
export function createRepositories(db: Db, box: SecretBox) {
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

export type Repositories = ReturnType<typeof createRepositories>;
