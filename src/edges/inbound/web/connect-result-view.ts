import type { TiersService } from '../../../app/admin/tiers-service';
import type { ConnectCompletion } from '../../../app/admin/connect-service';
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
 * state, what a sync would do now (a dry run: nothing is applied), and what to fix.
 */
export async function connectResultView(
  deps: ConnectViewDeps,
  completion: Extract<ConnectCompletion, { kind: 'bound' }>,
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
        problem: 'grants no role in this server yet',
        fix: `Run /map tier:${tier.title} role:<role> in Discord.`,
      });
    for (const role of tier.roles) {
      if (role.problem) problems.push({ name: role.roleName ?? role.roleId, problem: role.problem.message, fix: role.problem.fix });
      else if (role.heldBack) problems.push({ name: tier.title, problem: role.heldBack.message, fix: role.heldBack.fix });
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
    problems.push({ name: 'Preview', problem: 'the sync preview could not be computed', fix: 'Run /sync dry_run:true in Discord.' });
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
