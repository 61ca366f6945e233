import type { T } from './i18n';

/**
 * What a refusal about a role is (src/core/authority.ts, src/core/role-hierarchy.ts): its code and
 * the names it speaks of. The refusal's English sentences are written where it is decided; another
 * language says them from these facts.
 */
export interface RefusalFacts {
  code: string;
  roleName: string;
  /** `at_or_above`: the person's highest role (null: none). */
  highestName?: string | null;
  /** `above_bot`, `missing_manage_roles`: the bot's highest role. */
  botRoleName?: string;
}

/**
 * A refusal's sentence and fix in the reader's language: English as the refusal states it; another
 * language from its facts, for the refusals it knows, else the English sentences.
 */
export function refusalWords(t: T, refusal: { message: string; fix: string; facts?: RefusalFacts }): { message: string; fix: string } {
  const { facts } = refusal;
  if (t.locale === 'en' || !facts) return { message: refusal.message, fix: refusal.fix };
  const role = facts.roleName;
  switch (facts.code) {
    case 'at_or_above':
      return {
        message: facts.highestName ? t('refusal.atOrAbove', { role, highest: facts.highestName }) : t('refusal.aboveYouNoRole', { role }),
        fix: t('refusal.atOrAboveFix', { role }),
      };
    case 'above_bot':
      return {
        message: t('refusal.aboveBot', { role, bot: facts.botRoleName ?? 'Tierlink' }),
        fix: t('refusal.aboveBotFix', { role, bot: facts.botRoleName ?? 'Tierlink' }),
      };
    case 'managed':
      return { message: t('refusal.managed', { role }), fix: t('refusal.managedFix', { role }) };
    default:
      return { message: refusal.message, fix: refusal.fix };
  }
}
