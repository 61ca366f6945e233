import type { T } from './i18n';
import type { Entitlement, RoleNote } from './planner';

/**
 * Why a role is not given, in the reader's language: the planner's own sentence in English (the
 * source, as the audit log keeps it), said from its fields (`RoleNote.why`) otherwise. `standing`
 * says a member's standing in a campaign the reader's way (a reply and a page write dates apart).
 */
export function noteReasonText(t: T, note: Pick<RoleNote, 'reason' | 'why'>, standing: (entitlement: Entitlement) => string): string {
  if (t.locale === 'en') return note.reason;
  const { why } = note;
  switch (why.kind) {
    case 'tier_gone':
      return t('note.tierGone', { tier: why.tier });
    case 'free_tier':
      return t('note.freeTier', { tier: why.tier });
    case 'no_role':
      return t('note.noRole', { tier: why.tier });
    case 'not_your_tier':
      return t('note.notYourTier', { tier: why.tier });
    case 'role_missing':
      return t('note.roleMissing');
    case 'highest_only':
      return t('note.highestOnly');
    case 'standing':
      return t('note.standing', { tier: why.tier, standing: standing(why.entitlement) });
  }
}
