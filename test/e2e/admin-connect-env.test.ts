import { type E2E, pageText, startE2E } from '../support/e2e';
import { MANAGE_ROLES, connectIn, runCommand } from '../support/e2e-admin';

/**
 * PATREON_CREATOR_ACCESS_TOKEN/_REFRESH_TOKEN connect the creator at start-up without a click, and
 * PATREON_CAMPAIGN_ID picks which of the creator's two campaigns is served, there and in /connect.
 */
let e: E2E;
let side: { campaignId: string; tierId: string; roleId: string };
beforeAll(async () => {
  e = await startE2E({
    creatorTokensInEnv: true,
    beforeStart: ({ patreon, discord, guildId }) => {
      const roleId = discord.guild(guildId).roles.find((r) => r.name === 'Staff')!.id;
      const campaign = patreon.createCampaign({ vanity: 'casey-side' });
      side = {
        campaignId: campaign.id,
        roleId,
        tierId: patreon.createTier(campaign.id, { title: 'Side Supporter', amountCents: 200, chatRoleIds: [roleId] }).id,
      };
      return { PATREON_CAMPAIGN_ID: campaign.id };
    },
  });
}, 60_000);
afterAll(() => e?.stop());

test('the creator tokens in the environment bind the campaign PATREON_CAMPAIGN_ID names at start-up, with its webhook and tiers', async () => {
  const { repos } = e.tierlink.services;
  expect(await repos.guilds.campaignsOf(e.guildId)).toEqual([side.campaignId]);
  expect(e.patreon.webhooks().map((w) => w.campaignId)).toEqual([side.campaignId]);
  expect(await repos.credentials.creators()).toEqual([e.patreon.creatorUserId]);

  const tiers = await runCommand(e, { userId: e.ownerId, name: 'tiers', memberPermissions: MANAGE_ROLES }).reply();
  expect(tiers.content).toContain('**Side Supporter** — $2');
  expect(tiers.content).toContain(`<@&${side.roleId}> (from the tier’s Discord role on Patreon)`);
  expect(tiers.content).not.toContain('Gold');

  // A patron of that campaign links and gets its role.
  const member = e.discord.addMember(e.guildId, { username: 'sam' });
  const sam = e.patreon.createUser({ fullName: 'Sam Side' });
  e.patreon.setMembership(
    sam.id,
    side.campaignId,
    { patronStatus: 'active_patron', tierIds: [side.tierId], lastChargeDate: e.clock.now(), lastChargeStatus: 'Paid' },
    { deliver: false },
  );
  await e.link(member.userId, sam.id);
  expect(e.discord.memberRoles(e.guildId, member.userId)).toEqual([side.roleId]);
});

test('/connect binds the campaign PATREON_CAMPAIGN_ID names without asking which', async () => {
  const result = await connectIn(e, e.guildId, e.ownerId);
  expect(result.status).toBe(200);
  const text = pageText(result.html);
  expect(text).toContain('Your campaign is connected');
  expect(text).not.toContain('Which campaign');
  expect(text).toMatch(/Side Supporter \$2 a month · 1 patron @Staff/);
  expect(await e.tierlink.services.repos.guilds.campaignsOf(e.guildId)).toEqual([side.campaignId]);
  expect(e.patreon.webhooks()).toHaveLength(1);
});
