import type { TierRoleLine, TiersService } from '../../../app/admin/tiers-service';
import type { ConnectCompletion } from '../../../app/admin/connect-service';
import { type T, translator } from '../../../core/i18n';
import { permissionsIn, refusalWords } from '../../../core/refusal-text';
import type { Logger } from '../../../shared/logger';
import type { SyncOutcome } from '../../../app/sync/sync-scheduler';
import type { WebhookRegistration } from '../../../app/webhooks/registration';
import type { GuildNames } from './page-sources';
import type { ConnectResultView, ProblemLine } from './pages/views';

export interface ConnectViewDeps {
  guilds: GuildNames;
  tiers: TiersService;
  registration: Pick<WebhookRegistration, 'health'>;
  runSync(options: { guildId: string; dryRun: boolean; force: boolean; trigger: 'manual' }): Promise<SyncOutcome>;
  logger: Logger;
}

/**
 * The creator's page after `/connect` bound a campaign: its tiers with their roles, the webhook's
 * state, what a sync would do now (a dry run: nothing is applied), and what to fix, in the reader's
 * language (`t`; English keeps the services' own sentences).
 */
export async function connectResultView(
  deps: ConnectViewDeps,
  completion: Extract<ConnectCompletion, { kind: 'bound' }>,
  t: T = translator('en'),
): Promise<ConnectResultView> {
  const { guildId, campaignId, name } = completion.bound;
  const [guildName, tiers, health] = await Promise.all([
    deps.guilds.name(guildId),
    deps.tiers.list(guildId),
    deps.registration.health(campaignId),
  ]);
  const problems: ProblemLine[] = [];
  for (const tier of tiers.filter((t) => t.campaignId === campaignId)) {
    if (tier.roles.every((r) => r.elsewhere !== null))
      problems.push({
        name: tier.title,
        problem: t('connectPage.tierNoRole'),
        fix: t('connectPage.tierNoRoleFix', { tier: tier.title }),
      });
    for (const role of tier.roles) {
      if (role.problem) problems.push({ name: role.roleName ?? role.roleId, ...roleProblemIn(t, role, tier.title) });
      else if (role.heldBack) problems.push({ name: tier.title, ...heldBackIn(t, role.roleName ?? role.roleId, role.heldBack) });
    }
  }
  let dryRun: ConnectResultView['dryRun'] = { linkedMembers: 0, adds: 0, removes: 0, held: false };
  try {
    const outcome = await deps.runSync({ guildId, dryRun: true, force: false, trigger: 'manual' });
    const guild = 'skipped' in outcome ? undefined : outcome.guilds.find((g) => g.guildId === guildId);
    if (guild)
      dryRun = { linkedMembers: guild.linkedMembers, adds: guild.planned.adds, removes: guild.planned.removes, held: guild.held !== null };
  } catch (error) {
    deps.logger.warn({ err: error, guildId }, 'the dry run after /connect failed');
    problems.push({ name: t('connectPage.preview'), problem: t('connectPage.previewFailed'), fix: t('connectPage.previewFailedFix') });
  }
  const state = health.manualSecret
    ? 'manual-secret'
    : health.lastState === 'failed' || !health.exists
      ? 'failed'
      : health.lastState === 'registered'
        ? 'registered'
        : 'already-registered';
  return {
    campaignName: name,
    guildName,
    tiers: tiers
      .filter((t) => t.campaignId === campaignId)
      .map((t) => ({
        title: t.title,
        amountCents: t.amountCents,
        pricing: t.pricing,
        patronCount: t.patronCount,
        roles: t.roles.filter((r) => r.roleName).map((r) => r.roleName!),
      })),
    webhook: { state, detail: health.lastDetail },
    dryRun,
    problems,
  };
}

/** A role's problem in the reader's language: a role that no longer exists by how the tier names it, the others from their facts. */
function roleProblemIn(t: T, role: TierRoleLine, tier: string): { problem: string; fix: string } {
  const problem = role.problem!;
  if (t.locale === 'en') return { problem: problem.message, fix: problem.fix };
  if (role.roleName === null)
    return {
      problem: t('connectPage.roleMissing', { role: role.roleId }),
      fix: t(role.source === 'map' ? 'connectPage.roleMissingMapFix' : 'connectPage.roleMissingPatreonFix', { tier }),
    };
  const words = refusalWords(t, problem);
  return { problem: words.message, fix: words.fix };
}

/** A role held back for its dangerous permissions, in the reader's language. */
function heldBackIn(t: T, role: string, held: NonNullable<TierRoleLine['heldBack']>): { problem: string; fix: string } {
  if (t.locale === 'en') return { problem: held.message, fix: held.fix };
  const count = held.permissions.length;
  const permissions = permissionsIn(t, held.permissions);
  return {
    problem: t(held.gained ? 'connectPage.heldBackGained' : 'connectPage.heldBack', { role, count, permissions }),
    fix: t('connectPage.heldBackFix', { role, count }),
  };
}
