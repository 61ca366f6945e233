import { ENGLISH, type MessageKey, type T } from './i18n';

/**
 * What a refusal about a role is (src/core/authority.ts, src/core/role-hierarchy.ts): its code and
 * the names it speaks of. The refusal's English sentences are written where it is decided; another
 * language says them from these facts.
 */
export interface RefusalFacts {
  code: string;
  roleName: string;
  /** `at_or_above`: the person's highest role (null: none); `above_connector`: the connector's (null: deleted). */
  highestName?: string | null;
  /** `above_bot`, `missing_manage_roles`: the bot's highest role. */
  botRoleName?: string;
  /** `dangerous`: the role's dangerous permissions, by their English names. */
  permissions?: readonly string[];
  /** `patreon_role_missing`: the tier whose Discord role on Patreon is not in the server. */
  tier?: string;
}

/** A Discord permission by its English name, as Discord names it in the reader's language (`perm.*`). */
export function permissionIn(t: T, english: string): string {
  const key = `perm.${english}`;
  return key in ENGLISH ? t(key as Extract<MessageKey, `perm.${string}`>) : english;
}

/** Dangerous permissions by their English names, listed as Discord names them in the reader's language ("Bannen und Kicken"). */
export function permissionsIn(t: T, permissions: readonly string[]): string {
  return new Intl.ListFormat(t.locale, { type: 'conjunction' }).format(permissions.map((p) => permissionIn(t, p)));
}

/**
 * A refusal's sentence and fix in the reader's language: English as the refusal states it; another
 * language from its facts, for the refusals it knows, else the English sentences.
 */
export function refusalWords(t: T, refusal: { message: string; fix: string; facts?: RefusalFacts }): { message: string; fix: string } {
  const { facts } = refusal;
  if (t.locale === 'en' || !facts) return { message: refusal.message, fix: refusal.fix };
  return refusalFromFacts(t, facts) ?? { message: refusal.message, fix: refusal.fix };
}

/** A refusal's sentence and fix said from its facts in any language, or null for a refusal it does not know. */
export function refusalFromFacts(t: T, facts: RefusalFacts): { message: string; fix: string } | null {
  const role = facts.roleName;
  switch (facts.code) {
    case 'at_or_above':
      return {
        message: facts.highestName ? t('refusal.atOrAbove', { role, highest: facts.highestName }) : t('refusal.aboveYouNoRole', { role }),
        fix: t('refusal.atOrAboveFix', { role }),
      };
    case 'above_connector':
      return {
        message: facts.highestName
          ? t('refusal.aboveConnector', { role, highest: facts.highestName })
          : t('refusal.aboveConnectorGone', { role }),
        fix: t('refusal.aboveConnectorFix', { role }),
      };
    case 'above_bot':
      return {
        message: t('refusal.aboveBot', { role, bot: facts.botRoleName ?? 'Tierlink' }),
        fix: t('refusal.aboveBotFix', { role, bot: facts.botRoleName ?? 'Tierlink' }),
      };
    case 'managed':
      return { message: t('refusal.managed', { role }), fix: t('refusal.managedFix', { role }) };
    case 'missing_permission':
      return { message: t('refusal.missingPermission', { role }), fix: t('refusal.missingPermissionFix') };
    case 'dangerous': {
      const count = (facts.permissions ?? []).length;
      return {
        message: t('refusal.dangerous', { role, count, permissions: permissionsIn(t, facts.permissions ?? []) }),
        fix: t('refusal.dangerousFix', { role, count }),
      };
    }
    case 'unknown_role':
      return { message: t('refusal.unknownRole', { role }), fix: t('refusal.unknownRoleFix') };
    case 'patreon_role_missing':
      return { message: t('refusal.patreonRoleMissing', { role }), fix: t('refusal.patreonRoleMissingFix', { tier: facts.tier ?? '' }) };
    case 'everyone':
      return { message: t('refusal.everyone'), fix: t('refusal.everyoneFix') };
    case 'not_a_member':
      return { message: t('refusal.notMember'), fix: t('refusal.notMemberFix') };
    case 'missing_manage_roles': {
      const bot = facts.botRoleName ?? 'Tierlink';
      return { message: t('refusal.botNoManageRoles', { role, bot }), fix: t('refusal.botNoManageRolesFix', { bot }) };
    }
    default:
      return null;
  }
}
