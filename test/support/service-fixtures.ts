import { createRepositories } from '../../src/edges/outbound/store/repositories';
import type { SnapshotInput } from '../../src/edges/outbound/store/repositories/snapshot-repository';
import { createSecretBox } from '../../src/edges/outbound/store/secret-box';
import type { Db } from '../../src/edges/outbound/store/database';

/** The key the test fixtures seal credentials with. */
export const TEST_SECRET_KEY = 'test-secret-key-that-is-long-enough-1234';

/** Every repository over one test database. */
export function repositories(db: Db) {
  return createRepositories(db, createSecretBox(TEST_SECRET_KEY));
}

export function activeSnapshot(overrides: Partial<SnapshotInput> = {}): SnapshotInput {
  return {
    campaignId: 'c1',
    memberId: 'm1',
    externalUserId: 'p1',
    patronStatus: 'active_patron',
    isFollower: false,
    lastChargeDate: new Date('2026-11-01T00:00:00Z'),
    lastChargeStatus: 'Paid',
    entitledTierIds: ['gold'],
    pledgeRelationshipStart: new Date('2026-10-01T00:00:00Z'),
    entitledAmountCents: 1000,
    source: 'patreon',
    readBy: 'sync',
    ...overrides,
  };
}
