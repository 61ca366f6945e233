import { translator } from '../../src/core/i18n';
import { refusalWords } from '../../src/core/refusal-text';
import { checkRoleAssignable } from '../../src/core/role-hierarchy';
import { type Authority, Permission, checkRoleAuthority } from '../../src/core/authority';
import { englishIn } from '../support/english-leaks';

/**
 * A refusal about a role is decided with its English sentences and its facts; another language
 * says it from the facts. The source catalogue's sentences are the decided English ones, so the two
 * cannot drift apart unseen.
 */

const GUILD = '100000000000000000';
const roles = [
  { id: GUILD, name: '@everyone', position: 0, permissions: '0', managed: false },
  { id: '2', name: 'Gold', position: 3, permissions: '0', managed: false },
  { id: '3', name: 'Tierlink', position: 2, permissions: String(1n << 28n), managed: false },
  { id: '4', name: 'Booster', position: 1, permissions: '0', managed: true },
];

const refusal = (roleId: string) => {
  const check = checkRoleAssignable({ guildId: GUILD, roles, botRoleIds: ['3'], roleId });
  if (check.ok) throw new Error('expected a refusal');
  return { message: check.error.message, fix: check.error.fix, facts: check.error };
};

test('the source catalogue’s sentences are the English ones the refusal was decided with', () => {
  for (const id of ['2', '4']) {
    const r = refusal(id);
    expect(refusalWords(translator('en'), r)).toEqual({ message: r.message, fix: r.fix });
    expect(refusalWords(translator('de'), r).message).not.toBe(r.message);
  }
  const above = refusal('2');
  expect(above.message).toBe(translator('en')('refusal.aboveBot', { role: 'Gold', bot: 'Tierlink' }));
  expect(above.fix).toBe(translator('en')('refusal.aboveBotFix', { role: 'Gold', bot: 'Tierlink' }));
  const managed = refusal('4');
  expect(managed.message).toBe(translator('en')('refusal.managed', { role: 'Booster' }));
});

test('German and Portuguese say the refusal and its fix from its facts, naming Discord’s settings as Discord does', () => {
  expect(refusalWords(translator('de'), refusal('2'))).toEqual({
    message: 'Gold liegt auf oder über Tierlink, der höchsten Rolle des Bots, daher lehnt Discord die Vergabe ab.',
    fix: 'Verschiebe die Rolle Tierlink in Servereinstellungen → Rollen über Gold.',
  });
  expect(refusalWords(translator('pt-BR'), refusal('4')).fix).toBe(
    'Crie um cargo comum para o nível e mapeie o nível para ele em vez de Booster.',
  );
});

test('a refusal without facts, or one whose code has no words, keeps its English sentences', () => {
  expect(refusalWords(translator('de'), { message: 'M', fix: 'F' })).toEqual({ message: 'M', fix: 'F' });
  expect(refusalWords(translator('de'), { message: 'M', fix: 'F', facts: { code: 'not_a_code', roleName: 'Gold' } })).toEqual({
    message: 'M',
    fix: 'F',
  });
});

/** Every other refusal of the two deciders: @everyone, a deleted role, the bot without Manage Roles, a member without it, a dangerous role. */
function everyOtherRefusal() {
  const assignable = (roleId: string, botRoleIds = ['3']) => {
    const check = checkRoleAssignable({ guildId: GUILD, roles, botRoleIds, roleId });
    if (check.ok) throw new Error('expected a refusal');
    return check.error;
  };
  const member = (permissions: bigint): Authority => ({
    guildId: GUILD,
    userId: '9',
    isOwner: false,
    isAdministrator: false,
    permissions,
    highest: { id: '5', name: 'Mods', position: 9, permissions: String(permissions), managed: false },
  });
  const authority = (permissions: bigint, role: (typeof roles)[number]) => {
    const check = checkRoleAuthority(member(permissions), role);
    if (check.ok) throw new Error('expected a refusal');
    return check.error;
  };
  const powerful = {
    id: '6',
    name: 'Helpers',
    position: 1,
    permissions: String(Permission.KickMembers | Permission.BanMembers),
    managed: false,
  };
  const oneKick = { ...powerful, id: '7', name: 'Bouncers', permissions: String(Permission.KickMembers) };
  return [
    assignable(GUILD),
    assignable('404'),
    assignable('2', ['4']),
    authority(0n, roles[1]!),
    authority(Permission.ManageRoles, powerful),
    authority(Permission.ManageRoles, oneKick),
  ];
}

test('every other refusal: the source catalogue says the decided English, German and Portuguese say it from the facts', () => {
  const refusals = everyOtherRefusal();
  expect(refusals.map((r) => r.code)).toEqual([
    'everyone',
    'unknown_role',
    'missing_manage_roles',
    'missing_permission',
    'dangerous',
    'dangerous',
  ]);
  for (const r of refusals) {
    const decided = { message: r.message, fix: r.fix, facts: r };
    expect(refusalWords(translator('en'), decided)).toEqual({ message: r.message, fix: r.fix });
    for (const locale of ['de', 'pt-BR', 'es-ES'] as const) {
      const said = refusalWords(translator(locale), decided);
      expect(said.message).not.toBe(r.message);
      expect(said.fix).not.toBe(r.fix);
      expect(englishIn(`${said.message} ${said.fix}`)).toEqual([]);
    }
  }
  // The source catalogue writes the same English, so a change to one shows here.
  const en = translator('en');
  const [everyone, unknown, botCannot, missing, dangerous, oneDangerous] = refusals;
  expect(en('refusal.everyone')).toBe(everyone!.message);
  expect(en('refusal.unknownRole', { role: '404' })).toBe(unknown!.message);
  expect(en('refusal.botNoManageRoles', { role: 'Gold', bot: 'Booster' })).toBe(botCannot!.message);
  expect(en('refusal.botNoManageRolesFix', { bot: 'Booster' })).toBe(botCannot!.fix);
  expect(en('refusal.missingPermission', { role: 'Gold' })).toBe(missing!.message);
  expect(en('refusal.dangerous', { role: 'Helpers', count: 2, permissions: 'Kick Members, Ban Members' })).toBe(dangerous!.message);
  expect(en('refusal.dangerousFix', { role: 'Bouncers', count: 1 })).toBe(oneDangerous!.fix);
});

test('a dangerous role’s permissions are named as Discord names them in the reader’s language', () => {
  const dangerous = everyOtherRefusal()[4]!;
  const de = refusalWords(translator('de'), { message: dangerous.message, fix: dangerous.fix, facts: dangerous });
  expect(de.message).toContain(`${translator('de')('perm.Kick Members')} und ${translator('de')('perm.Ban Members')}`);
  expect(de.fix).toContain('diese Berechtigungen');
});

test('a tier’s Discord role on Patreon that is not in the server: said from its facts, English as the Tiers page records it', () => {
  const facts = { code: 'patreon_role_missing', roleName: '777', tier: 'Gold' };
  const recorded = {
    message: 'role 777 does not exist in this server',
    fix: 'Set the tier’s Discord role on Patreon to a role of this server, or /map tier:Gold an existing role',
    facts,
  };
  const en = translator('en');
  expect(refusalWords(en, recorded)).toEqual({ message: recorded.message, fix: recorded.fix });
  expect({
    message: en('refusal.patreonRoleMissing', { role: '777' }),
    fix: en('refusal.patreonRoleMissingFix', { tier: 'Gold' }),
  }).toEqual({
    message: recorded.message,
    fix: recorded.fix,
  });
  for (const locale of ['de', 'pt-BR', 'es-ES'] as const) {
    const said = refusalWords(translator(locale), recorded);
    expect(said.message).toContain('777');
    expect(said.fix).toContain('/map tier:Gold');
    expect(englishIn(`${said.message} ${said.fix}`)).toEqual([]);
  }
});
