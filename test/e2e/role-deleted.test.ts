import { type E2E, startE2E } from '../support/e2e';

const ADMIN = 1n << 3n;
let e: E2E;
beforeAll(async () => {
  e = await startE2E({ connected: true });
}, 60_000);
afterAll(() => e?.stop());

const settled = async (check: () => Promise<boolean>) => {
  for (let i = 0; i < 100; i++) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error('not settled');
};

test('a role deleted in Discord leaves the /map rows and the settings that named it', async () => {
  const extra = e.discord.createRole(e.guildId, { name: 'Supporter', position: 1 }).id;
  const alumni = e.discord.createRole(e.guildId, { name: 'Alumni', position: 1 }).id;
  await e.command(
    e.ownerId,
    'map',
    [
      { name: 'tier', type: 3, value: `${e.patreon.campaignId}:${e.tiers.gold}` },
      { name: 'role', type: 8, value: extra },
    ],
    ADMIN,
  );
  await e.command(e.ownerId, 'settings', [{ name: 'former_role', type: 8, value: alumni }], ADMIN);
  const repos = e.tierlink.services.repos;
  expect((await repos.mappings.of(e.guildId)).map((m) => m.roleId)).toEqual([extra]);

  e.discord.deleteRole(e.guildId, extra);
  e.discord.deleteRole(e.guildId, alumni);

  await settled(
    async () => (await repos.mappings.of(e.guildId)).length === 0 && (await repos.guilds.settings(e.guildId)).formerPatronRoleId === null,
  );
  const tiers = await e.command(e.ownerId, 'tiers', [], ADMIN);
  expect(tiers.content).not.toContain(extra);
  const settings = await e.command(e.ownerId, 'settings', [], ADMIN);
  expect(settings.content).toContain('**Former-patron role**: none');
});
