import { translator } from '../../src/core/i18n';
import { refusalWords } from '../../src/core/refusal-text';
import { checkRoleAssignable } from '../../src/core/role-hierarchy';

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

test('a refusal without facts, or one whose code has no words yet, keeps its English sentences', () => {
  expect(refusalWords(translator('de'), { message: 'M', fix: 'F' })).toEqual({ message: 'M', fix: 'F' });
  expect(refusalWords(translator('de'), { message: 'M', fix: 'F', facts: { code: 'everyone', roleName: '@everyone' } })).toEqual({
    message: 'M',
    fix: 'F',
  });
});
