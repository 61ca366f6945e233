import { type E2E, startE2E } from '../support/e2e';
import { MANAGE_ROLES, activePatron, runCommand, stringOption } from '../support/e2e-admin';

/**
 * An operator stops Tierlink (an upgrade, a restart) while a creator's `/settings` is still being
 * answered (saved, its members' roles being changed): the answer still comes, before the database
 * closes, instead of "something went wrong" from a service closed under it.
 */

let e: E2E;
let ada: string;
beforeAll(async () => {
  e = await startE2E();
  await e.connect();
  ada = e.discord.addMember(e.guildId, { username: 'ada' }).userId;
  await e.link(ada, activePatron(e, 'Ada', [e.tiers.silver, e.tiers.gold]).id);
}, 60_000);
afterAll(() => e?.stop());

test('a command already being answered when Tierlink stops is answered before the service closes', async () => {
  expect(e.discord.memberRoles(e.guildId, ada).sort()).toEqual([e.roles.silver, e.roles.gold].sort());
  const settings = runCommand(e, {
    userId: e.ownerId,
    name: 'settings',
    options: [stringOption('mode', 'highest')],
    memberPermissions: MANAGE_ROLES,
  });
  await settings.until(/Settings saved/);
  await e.tierlink.stop();
  expect(settings.contents().at(-1)).toMatch(/Updated: 1 role change across \d+ members?\.$/);
  expect(e.discord.memberRoles(e.guildId, ada)).toEqual([e.roles.gold]);
});
