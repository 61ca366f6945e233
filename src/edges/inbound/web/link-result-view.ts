import type { LinkCompletion } from '../../../app/linking/link-service';
import { bestEntitlement } from '../../../app/linking/status-service';
import type { MemberOutcome } from '../../../app/sync/reconciler';
import { type T, formatDate, translator } from '../../../core/i18n';
import { reasonText } from '../../../core/reason-text';
import { refusalWords } from '../../../core/refusal-text';
import { grantReasonText, noteReasonOnPage } from './role-reasons';
import type { LinkResultView, ProblemLine, RoleLine } from './pages/views';

type Linked = Extract<LinkCompletion, { kind: 'linked' }>;

const STANDING_KEY = {
  active: 'linkPage.standingActive',
  follower: 'linkPage.standingFollower',
  former: 'linkPage.standingFormer',
  none: 'linkPage.standingNone',
} as const;

/**
 * The patron's result page, from what the link did in the guild where `/link` was run: the
 * entitlement (the best across the guild's campaigns), the roles granted, kept and removed, the
 * mapped roles they do not get with the reason, and the server-side problems.
 */
export function linkResultView(
  done: Linked,
  guildName: string | null,
  tierTitle: (campaignId: string, tierId: string) => string,
  t: T = translator('en'),
): LinkResultView {
  const { outcome } = done;
  const best = bestEntitlement(outcome.entitlements);
  // Declined with no tier to keep: the patron's next step is the lapsed one (fix the payment).
  const standing = best?.kind === 'grace' && best.tierIds.length === 0 ? 'lapsed' : (best?.kind ?? 'none');
  // English keeps the planner's sentence (it names the days and the grace period); another language
  // says the same from the entitlement's fields.
  const standingText =
    standing === 'grace' || standing === 'lapsed' || (standing === 'active' && best!.tierIds.length === 0)
      ? t.locale === 'en'
        ? best!.reason
        : standing === 'grace' && best!.graceEndsAt
          ? t('linkPage.standingGrace', { date: formatDate(t.locale, best!.graceEndsAt) })
          : standing === 'active'
            ? t('linkPage.standingActive')
            : t('linkPage.standingLapsed')
      : t(STANDING_KEY[standing]);
  const applied = outcome.result?.applied ?? [];
  const added = new Set(applied.filter((c) => c.op === 'add').map((c) => c.roleId));
  const granted: RoleLine[] = [];
  const kept: RoleLine[] = [];
  for (const grant of outcome.desired.grants.values()) {
    const blocked = outcome.plan.blocked.some((b) => b.roleId === grant.roleId);
    const failed = outcome.result?.failed.some((f) => f.change.roleId === grant.roleId) ?? false;
    if (blocked || failed) continue;
    (added.has(grant.roleId) ? granted : kept).push({ name: grant.roleName, reason: grantReasonText(grant, tierTitle, t) });
  }
  const removed: RoleLine[] = applied
    .filter((c) => c.op === 'remove')
    .map((c) => ({ name: 'roleName' in c && c.roleName ? c.roleName : c.roleId, reason: reasonText(t, c) }));
  const notGranted: RoleLine[] = outcome.desired.notes
    .filter((n) => n.roleName !== null || n.fix === null)
    .map((n) => ({
      name: n.roleName ?? (n.tierId ? tierTitle(n.campaignId ?? '', n.tierId) : t('page.aRole')),
      reason: noteReasonOnPage(n, t),
    }));
  const problems = problemLines(outcome, t);
  const tiers = outcome.entitlements.flatMap((e) => e.tierIds.map((id) => tierTitle(e.campaignId, id)));
  return {
    campaignName: done.campaignNames.join(' & ') || t('page.thisCreator'),
    guildName,
    patronName: done.patronName,
    discordAccount: {
      name: done.discordAccount.globalName ?? done.discordAccount.username ?? t('page.discordUser', { id: done.discordAccount.userId }),
      username: done.discordAccount.username,
    },
    standing,
    standingText,
    tiers,
    granted,
    kept,
    removed,
    notGranted,
    problems,
    inGuild: outcome.inGuild,
    pending: outcome.pending,
    // Active patrons need no link; everyone else gets Patreon (to pledge, or to fix a payment).
    pledgeUrl: standing === 'active' ? null : done.pledgeUrl,
    movedFromAnotherAccount: done.movedFromAnotherAccount,
    graceEndsAt: standing === 'grace' ? best!.graceEndsAt : null,
  };
}

/** The roles a member's reconcile could not give, with why and what to change: the link and join result pages. */
export function problemLines(outcome: Pick<MemberOutcome, 'plan' | 'result'>, t: T = translator('en')): ProblemLine[] {
  return [
    ...outcome.plan.blocked.map((b) => {
      const words = refusalWords(t, b.problem);
      return { name: b.roleName, problem: words.message, fix: words.fix };
    }),
    ...(outcome.result?.failed ?? []).map((f) => ({
      name: 'roleName' in f.change && f.change.roleName ? f.change.roleName : f.change.roleId,
      problem: f.message,
      fix: f.fix ?? t('page.ownerCanDoctor'),
    })),
  ];
}
