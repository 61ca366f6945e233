import { snapshotFromMember } from '../../../../src/edges/outbound/patreon/member-records';
import { type World, createWorld } from '../../../support/world';

let w: World;
beforeAll(async () => {
  w = await createWorld();
});
afterAll(() => w.close());
beforeEach(() => w.reset());

test('a connected creator reads members with the stored, sealed tokens, and the member reconciles to the tier role', async () => {
  const patron = w.addPatron({ tier: 'gold' });
  await w.repos.links.linkOauth('patreon', patron.discordUserId, patron.patreonUserId, w.clock.now());
  const client = await w.accounts.clientForCampaign(w.campaignId);
  const details = await client!.getMember(patron.memberId);
  await w.repos.snapshots.upsert(snapshotFromMember(details!.member, 'webhook'), w.clock.now());
  await w.reconciler.reconcileUser(patron.discordUserId, { trigger: 'webhook' });
  expect(w.discord.sandbox.memberRoles(w.guildId, patron.discordUserId)).toContain(w.roles.gold);
  const creator = (await w.repos.campaigns.get(w.campaignId))!.creatorUserId;
  expect((await w.repos.credentials.load(creator))?.accessToken).toBe(w.patreon.creatorTokens.accessToken);
});

test('an expired creator token is refreshed once, and the rotated pair is what the database holds', async () => {
  const patron = w.addPatron({ tier: 'silver' });
  const creator = (await w.repos.campaigns.get(w.campaignId))!.creatorUserId;
  const before = await w.repos.credentials.load(creator);
  w.patreon.expireAccessToken(before!.accessToken);
  const client = w.accounts.clientForCreator(creator);
  await expect(client.getMember(patron.memberId)).resolves.toMatchObject({ member: { entitledTierIds: [w.tiers.silver] } });
  const after = await w.repos.credentials.load(creator);
  expect(after?.refreshToken).not.toBe(before?.refreshToken);
  expect(after?.accessToken).not.toBe(before?.accessToken);
});
