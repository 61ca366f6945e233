import { createCampaignRepository } from '../../src/db/repositories/campaign-repository';
import { createGuildRepository } from '../../src/db/repositories/guild-repository';
import { createLedgerRepository } from '../../src/db/repositories/ledger-repository';
import { createLinkRepository } from '../../src/db/repositories/link-repository';
import { createMappingRepository } from '../../src/db/repositories/mapping-repository';
import { type SnapshotInput, createSnapshotRepository } from '../../src/db/repositories/snapshot-repository';
import type { Db } from '../../src/db/database';

/** Repositories over one test database, and a snapshot builder. */
export function repositories(db: Db) {
  return {
    guilds: createGuildRepository(db),
    campaigns: createCampaignRepository(db),
    mappings: createMappingRepository(db),
    links: createLinkRepository(db),
    snapshots: createSnapshotRepository(db),
    ledger: createLedgerRepository(db),
  };
}

export function activeSnapshot(overrides: Partial<SnapshotInput> = {}): SnapshotInput {
  return {
    campaignId: 'c1',
    memberId: 'm1',
    patreonUserId: 'p1',
    patronStatus: 'active_patron',
    isFollower: false,
    lastChargeDate: new Date('2026-11-01T00:00:00Z'),
    lastChargeStatus: 'Paid',
    entitledTierIds: ['gold'],
    pledgeRelationshipStart: new Date('2026-10-01T00:00:00Z'),
    entitledAmountCents: 1000,
    source: 'sync',
    ...overrides,
  };
}
