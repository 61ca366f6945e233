import { checkDetail, checkFix, renderDoctor, saidCheck, says } from '../../../src/app/admin/doctor';
import { translator } from '../../../src/core/i18n';

/**
 * A check says what it found as catalogue keys: English is written when the check is made, another
 * language when it is shown; a check that passes on words of Discord or of a deeper service (no
 * `said`) stays as it is in every language.
 */

const de = translator('de');
const pt = translator('pt-BR');

test('English is the source catalogue’s sentence, written when the check is made', () => {
  const check = saidCheck('Manage Roles permission', false, says('doctorSays.manageMissing'), says('doctorSays.manageFix'));
  expect(check.detail).toBe('Tierlink’s role lacks the Manage Roles permission');
  expect(check.fix).toBe('Server Settings → Roles → the Tierlink role → turn on Manage Roles.');
  expect(checkDetail(translator('en'), check)).toBe(check.detail);
});

test('another language says the detail and the fix in its own words, naming Discord’s permission as Discord does', () => {
  const check = saidCheck('Manage Roles permission', false, says('doctorSays.manageMissing'), says('doctorSays.manageFix'));
  expect(checkDetail(de, check)).toBe('Der Rolle von Tierlink fehlt die Berechtigung „Rollen verwalten“');
  expect(checkFix(pt, check)).toBe('Configurações do servidor → Cargos → o cargo do Tierlink → ative "Gerenciar cargos".');
  const reply = renderDoctor([check], de);
  expect(reply).toContain('„Rollen verwalten“');
  expect(reply).not.toContain('lacks');
});

test('a sentence inside a sentence ("as last checked") and a count are said in the reader’s language', () => {
  const check = saidCheck(
    'Casey: webhook',
    false,
    says('doctorSays.asOf', { said: says('doctorSays.hookFailing', { count: 3 }), when: '2026-11-20 12:00 UTC' }),
    says('doctorSays.hookFix'),
  );
  expect(check.detail).toBe('the last 3 deliveries failed (as last checked, 2026-11-20 12:00 UTC)');
  expect(checkDetail(de, check)).toBe('die letzten 3 Zustellungen sind fehlgeschlagen (zuletzt geprüft: 2026-11-20 12:00 UTC)');
  expect(checkDetail(pt, check)).toBe('as últimas 3 entregas falharam (última verificação: 2026-11-20 12:00 UTC)');
});

test('a check without catalogue sentences is shown as it came, in every language', () => {
  const check = { name: 'Discord access', ok: false, detail: 'Missing Access', fix: 'Invite the bot again.' };
  expect(checkDetail(de, check)).toBe('Missing Access');
  expect(checkFix(pt, check)).toBe('Invite the bot again.');
});
