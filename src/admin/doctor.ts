import type { CreatorAccounts } from '../campaigns/creator-accounts';
import type { CampaignRepository } from '../db/repositories/campaign-repository';
import type { CredentialRepository } from '../db/repositories/credential-repository';
import type { GuildRepository } from '../db/repositories/guild-repository';
import { DiscordProblemError } from '../discord/discord-problem';
import type { GuildDirectory } from '../discord/guild-directory';
import type { GuildSnapshotCache } from '../discord/guild-snapshot-cache';
import { botCanManageRoles } from '../discord/role-hierarchy';
import { CREATOR_SCOPES } from '../linking/connect-service';
import { managedRoleIds } from '../mapping/desired-roles';
import { PatreonApiError } from '../patreon';
import type { Clock } from '../shared/clock';
import { DAY } from '../shared/clock';
import type { GuildContextLoader } from '../sync/guild-context';

export interface DoctorCheck {
  name: string;
  ok: boolean;
  /** What was found. */
  detail: string;
  /** What to change, when not ok. */
  fix: string | null;
}

export interface WebhookHealth {
  registered: boolean;
  paused: boolean;
  numConsecutiveTimesFailed: number;
  checkedAt: Date | null;
  manualSecret: boolean;
}

export interface LastSync {
  startedAt: Date;
  finishedAt: Date | null;
  status: string;
  heldRemovals: number;
  heldReason: string | null;
  errors: string[];
}

export interface DoctorDeps {
  guilds: GuildRepository;
  campaigns: CampaignRepository;
  credentials: CredentialRepository;
  accounts: CreatorAccounts;
  contexts: GuildContextLoader;
  snapshots: GuildSnapshotCache;
  directory: GuildDirectory;
  clock: Clock;
  webhookHealth(campaignId: string): Promise<WebhookHealth | null>;
  lastSync(guildId: string): Promise<LastSync | null>;
}

const day = (d: Date) => d.toISOString().slice(0, 16).replace('T', ' ') + ' UTC';

/**
 * Checks everything that makes roles fail, the first support problem of every bot of this kind:
 * the bot's permission, each mapped role's position and kind, the members intent, the creator's
 * connection, the webhook, and the last sync. Each problem comes with the fix.
 */
export function createDoctor(deps: DoctorDeps) {
  async function discordChecks(guildId: string): Promise<DoctorCheck[]> {
    const checks: DoctorCheck[] = [];
    deps.snapshots.invalidate(guildId);
    let snapshot;
    try {
      snapshot = await deps.snapshots.get(guildId);
    } catch (error) {
      const problem = error instanceof DiscordProblemError ? error.problem : null;
      return [{ name: 'Discord access', ok: false, detail: problem?.message ?? 'the server could not be read', fix: problem?.fix ?? 'Check that Tierlink is still in this server.' }];
    }
    const canManage = botCanManageRoles(guildId, snapshot.roles, snapshot.botRoleIds);
    checks.push({
      name: 'Manage Roles permission',
      ok: canManage,
      detail: canManage ? 'Tierlink can manage roles' : 'Tierlink’s role lacks the Manage Roles permission',
      fix: canManage ? null : 'Server Settings → Roles → the Tierlink role → turn on Manage Roles.',
    });
    const guild = await deps.contexts.load(guildId);
    const managed = [...managedRoleIds(guild)];
    const problems: DoctorCheck[] = [];
    for (const roleId of managed) {
      const role = guild.roles.get(roleId);
      if (!role) {
        problems.push({ name: `Role ${roleId}`, ok: false, detail: 'is mapped but does not exist in this server', fix: 'Remove the mapping with /unmap, fix the tier’s Discord role on Patreon, or change /settings.' });
      } else if (role.problem) {
        problems.push({ name: `Role ${role.name}`, ok: false, detail: role.problem.message, fix: role.problem.fix });
      }
    }
    checks.push(
      ...(problems.length > 0
        ? problems
        : [{ name: 'Role positions', ok: true, detail: managed.length > 0 ? `all ${managed.length} mapped roles are below Tierlink’s role` : 'no roles are mapped yet', fix: null }]),
    );
    if (managed.length === 0 && guild.campaignIds.length > 0) {
      checks.push({ name: 'Mappings', ok: false, detail: 'no tier grants any role in this server', fix: 'Map a tier to a role with /map, or set the tier’s Discord role on Patreon.' });
    }
    try {
      for await (const _page of deps.directory.listMembers(guildId, { pageSize: 1 })) break;
      checks.push({ name: 'Server Members Intent', ok: true, detail: 'members can be listed (needed by the nightly sync and rejoin restore)', fix: null });
    } catch (error) {
      const problem = error instanceof DiscordProblemError ? error.problem : null;
      checks.push({ name: 'Server Members Intent', ok: false, detail: problem?.message ?? 'members cannot be listed', fix: problem?.fix ?? 'Developer Portal → your application → Bot → turn on Server Members Intent.' });
    }
    return checks;
  }

  async function campaignChecks(campaignId: string): Promise<DoctorCheck[]> {
    const checks: DoctorCheck[] = [];
    const campaign = await deps.campaigns.get(campaignId);
    const label = campaign?.name ?? `Campaign ${campaignId}`;
    if (!campaign) return [{ name: label, ok: false, detail: 'is bound to this server but unknown', fix: 'Run /connect again.' }];
    const status = await deps.credentials.status(campaign.creatorUserId);
    if (!status) {
      checks.push({ name: `${label}: Patreon connection`, ok: false, detail: 'no creator token is stored', fix: 'Run /connect and sign in as the creator.' });
    } else {
      try {
        await deps.accounts.clientForCreator(campaign.creatorUserId).getCampaign(campaignId);
        const missing = status.scopes ? CREATOR_SCOPES.filter((s) => !status.scopes.split(' ').includes(s)) : [];
        checks.push({
          name: `${label}: Patreon connection`,
          ok: missing.length === 0,
          detail: missing.length === 0 ? 'the creator token works' : `the creator token lacks the scopes ${missing.join(', ')}`,
          fix: missing.length === 0 ? null : 'Run /connect again and accept every permission Tierlink asks for.',
        });
      } catch (error) {
        const kind = error instanceof PatreonApiError ? error.kind : 'unexpected';
        const refreshFailed = status.refreshFailedAt ? ` (a refresh failed at ${day(status.refreshFailedAt)})` : '';
        const tokenProblem = ['unauthorized', 'refresh_failed', 'refresh_cooldown', 'not_connected'].includes(kind);
        checks.push({
          name: `${label}: Patreon connection`,
          ok: false,
          detail: tokenProblem ? `the creator token is no longer accepted${refreshFailed}` : `Patreon could not be reached (${kind})`,
          fix: tokenProblem ? 'Run /connect again and sign in as the creator.' : 'Patreon may be down; Tierlink retries. Run /doctor again later.',
        });
      }
    }
    const webhook = await deps.webhookHealth(campaignId);
    if (!webhook || !webhook.registered) {
      checks.push({ name: `${label}: webhook`, ok: false, detail: 'no webhook is registered, so pledge changes wait for the nightly sync', fix: 'Make sure PUBLIC_URL is reachable from the internet; Tierlink registers its webhook within 15 minutes, or at the next /connect.' });
    } else if (webhook.paused || webhook.numConsecutiveTimesFailed > 0) {
      checks.push({
        name: `${label}: webhook`,
        ok: false,
        detail: webhook.paused ? 'Patreon paused the webhook after failed deliveries' : `the last ${webhook.numConsecutiveTimesFailed} deliveries failed`,
        fix: 'Make sure PUBLIC_URL/webhooks/patreon is reachable; Tierlink un-pauses it and resyncs within 15 minutes.',
      });
    } else {
      checks.push({ name: `${label}: webhook`, ok: true, detail: webhook.manualSecret ? 'using the secret from PATREON_WEBHOOK_SECRET' : 'registered and delivering', fix: null });
    }
    return checks;
  }

  async function syncCheck(guildId: string): Promise<DoctorCheck> {
    const last = await deps.lastSync(guildId);
    if (!last) return { name: 'Last sync', ok: true, detail: 'no full sync has run yet', fix: null };
    const when = day(last.startedAt);
    if (last.heldRemovals > 0) {
      return { name: 'Last sync', ok: false, detail: `${when}: ${last.heldRemovals} removals held (${last.heldReason ?? 'above the mass-removal guard'})`, fix: 'Check them with /sync dry_run:true, then apply with /sync force:true.' };
    }
    if (last.errors.length > 0 || last.status === 'failed') {
      return { name: 'Last sync', ok: false, detail: `${when}: ${last.errors[0] ?? last.status}`, fix: 'Fix the problems above and run /sync.' };
    }
    const stale = deps.clock.now().getTime() - last.startedAt.getTime() > 2 * DAY;
    return { name: 'Last sync', ok: !stale, detail: `${when}: ${last.status}`, fix: stale ? 'The nightly sync has not run for two days: check that Tierlink is running and SYNC_SCHEDULE.' : null };
  }

  return {
    async run(guildId: string): Promise<DoctorCheck[]> {
      const campaignIds = await deps.guilds.campaignsOf(guildId);
      const checks: DoctorCheck[] = [];
      if (campaignIds.length === 0) {
        checks.push({ name: 'Campaign', ok: false, detail: 'no Patreon campaign is connected to this server', fix: 'Run /connect and sign in as the creator.' });
      }
      checks.push(...(await discordChecks(guildId)));
      for (const campaignId of campaignIds) checks.push(...(await campaignChecks(campaignId)));
      checks.push(await syncCheck(guildId));
      return checks;
    },
  };
}

/** The `/doctor` reply: problems first with their fixes, or "all good". */
export function renderDoctor(checks: readonly DoctorCheck[]): string {
  const problems = checks.filter((c) => !c.ok);
  const lines = problems.length === 0 ? ['**All good.** Everything Tierlink needs is in place.'] : [`**${problems.length} problem${problems.length === 1 ? '' : 's'} found**`];
  for (const c of problems) lines.push(`❌ **${c.name}**: ${c.detail}\n   **Fix:** ${c.fix ?? 'see above'}`);
  for (const c of checks.filter((x) => x.ok)) lines.push(`✅ **${c.name}**: ${c.detail}`);
  return lines.join('\n').slice(0, 1990);
}

export type Doctor = ReturnType<typeof createDoctor>;
