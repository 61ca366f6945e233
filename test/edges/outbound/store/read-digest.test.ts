import { type SnapshotInput, readDigest, readDigestKey } from '../../../../src/edges/outbound/store/repositories/snapshot-repository';

/**
 * The full sync compares each read with the stored digest as a number (`readDigestKey`), the store
 * keeps it as 13 hexadecimal digits (`readDigest`): the two must name the same digest, and the
 * stored form must stay what earlier versions wrote, or every member would count as changed once.
 */
const full: SnapshotInput = {
  source: 'patreon',
  campaignId: 'c1',
  memberId: 'm-1',
  externalUserId: 'u1',
  patronStatus: 'active_patron',
  isFollower: false,
  isFreeTrial: true,
  lastChargeDate: new Date('2026-11-01T10:00:00.000Z'),
  lastChargeStatus: 'Paid',
  entitledTierIds: ['t1', 't2'],
  pledgeRelationshipStart: new Date('2025-01-02T03:04:05.000Z'),
  entitledAmountCents: 500,
  fullName: 'Ada',
  hidesPledges: true,
  readBy: 'sync',
};
const bare: SnapshotInput = {
  source: 'patreon',
  campaignId: 'c1',
  memberId: 'm-2',
  externalUserId: null,
  patronStatus: null,
  isFollower: false,
  lastChargeDate: null,
  lastChargeStatus: null,
  entitledTierIds: [],
  pledgeRelationshipStart: null,
  entitledAmountCents: null,
  readBy: 'sync',
};

describe('the digest of a read', () => {
  it('is stored as before (values written by earlier versions)', () => {
    expect(readDigest(full)).toBe('245686b55aeb5');
    expect(readDigest(bare)).toBe('58d525f6a52c3');
  });

  it('compares as the number its stored digits spell, for every value that changes it', () => {
    const variants: SnapshotInput[] = [
      full,
      bare,
      { ...full, memberId: 'm-3' },
      { ...full, patronStatus: 'former_patron' },
      { ...full, isGifted: true },
      { ...full, lastChargeDate: new Date('2026-11-01T10:00:00.001Z') },
      { ...full, entitledTierIds: ['t2', 't1'] },
      { ...full, entitledAmountCents: 0 },
      { ...full, fullName: null },
      { ...full, hidesPledges: false },
    ];
    for (const v of variants) expect(readDigestKey(v)).toBe(parseInt(readDigest(v), 16));
    expect(new Set(variants.map(readDigestKey)).size).toBe(variants.length);
  });
});
