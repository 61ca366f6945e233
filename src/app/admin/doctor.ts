import { ENGLISH, type MessageKey, type T, translator } from '../../core/i18n';
import { type Said, checkDetail, checkFix, saidCheck, says, withSaid } from './doctor-says';
import type { CreatorAccounts } from '../../edges/outbound/patreon/creator-accounts';
import type { CampaignRepository } from '../../edges/outbound/store/repositories/campaign-repository';
import type { CredentialRepository } from '../../edges/outbound/store/repositories/credential-repository';
import type { GuildRepository } from '../../edges/outbound/store/repositories/guild-repository';
import { type DiscordProblem, DiscordProblemError } from '../../edges/outbound/discord/discord-problem';
import type { GuildDirectory } from '../../edges/outbound/discord/guild-directory';
import type { GuildSnapshotCache } from '../../edges/outbound/discord/guild-snapshot-cache';
import { MANAGE_ROLES, botCanManageRoles } from '../../core/role-hierarchy';
import { listed } from '../../core/authority';
import { CREATOR_SCOPES } from './connect-service';
import { tierRoles } from '../../core/planner/desired-roles';
import type { GrantSource, GuildContext } from '../../core/planner/types';
import { type PatreonClient, PatreonApiError } from '../../edges/outbound/patreon';
import { type Clock, MINUTE } from '../../shared/clock';
import type { GuildContextLoader } from '../sync/guild-context';
import { guildRoles } from '../../core/guild-roles';
import { findRolesElsewhere } from './roles-elsewhere';
import { campaignWebhooks } from '../webhooks/campaign-webhooks';
import { POST_POLL_INTERVAL_MS } from '../channels/announcements';
import { patreonBotCheck, unreadableMembersCheck } from './membership-checks';
import { oddValuesCheck } from './odd-values-check';
import { type LastSync, syncChecks } from './sync-checks';
import type { SyncProgress } from '../../core/sync-report';
import type { SnapshotRepository } from '../../edges/outbound/store/repositories/snapshot-repository';
import type { ApplicationInfo } from '../../edges/outbound/discord/application-info';
import { type EnvironmentBinding, botInviteCheck, unboundServerCheck } from './deployment-checks';
import type { GatewayStanding } from '../../edges/outbound/store/instance-registry';
import { gatewayCheck } from './gateway-check';

export interface DoctorCheck {
  name: string;
  ok: boolean;
  /** What was found, in English. */
  detail: string;
  /** What to change, when not ok, in English. */
  fix: string | null;
  /**
   * The same detail and fix as catalogue keys and parameters, for a reader of another language; a
   * check without them (or a fix without its own) is shown in English.
   */
  said?: { detail: Said; fix: Said | null };
}

export { type Said, checkDetail, checkFix, saidCheck, says, sayIn, withSaid } from './doctor-says';

export interface WebhookHealth {
  /** The webhook Tierlink registered, when known: the one whose live state counts. */
  webhookId?: string | null;
  /** Where that webhook points (Tierlink's own address): a listed webhook without its campaign is matched by it. */
  uri?: string | null;
  registered: boolean;
  paused: boolean;
  numConsecutiveTimesFailed: number;
  checkedAt: Date | null;
  manualSecret: boolean;
}

/** How far back `/doctor` counts the webhook deliveries Tierlink gave up on (they are kept longer). */
export const GIVEN_UP_DAYS = 7;

export interface DoctorDeps {
  guilds: GuildRepository;
  campaigns: CampaignRepository;
  credentials: CredentialRepository;
  accounts: CreatorAccounts;
  contexts: GuildContextLoader;
  snapshots: GuildSnapshotCache;
  directory: GuildDirectory;
  /** The stored member snapshots, for the members whose last read could not be understood. */
  members: Pick<SnapshotRepository, 'unreadable'>;
  clock: Clock;
  webhookHealth(campaignId: string): Promise<WebhookHealth | null>;
  /** When the campaign's new posts are polled (its webhook does not carry them) and the last poll failed. */
  postPollFailure?(campaignId: string): Promise<{ at: Date; error: string } | null>;
  /** The campaign's webhook deliveries Tierlink gave up on in the last {@link GIVEN_UP_DAYS} days. */
  givenUpDeliveries?(campaignId: string): Promise<{ count: number; last: Date | null }>;
  lastSync(guildId: string): Promise<LastSync | null>;
  /** The guild's sync in progress, on any instance. */
  runningSync(guildId: string): Promise<SyncProgress | null>;
  /** The join page's address, or what keeps it from adding people (src/app/joining). */
  joinPage?(guildId: string): Promise<DoctorCheck>;
  /** The bot's application: is it public? */
  application?: ApplicationInfo;
  /** The creator tokens of the environment and the servers they may bind. */
  environmentBinding?: EnvironmentBinding;
  /** Scheduled backups (BACKUP_DIR), when on: the last one, or what went wrong with it. */
  backups?(): Promise<DoctorCheck>;
  /** Who holds each gateway shard and whether it is connected (the instance table). */
  gateway?: { standing(): Promise<GatewayStanding | null> };
}

const day = (d: Date) => d.toISOString().slice(0, 16).replace('T', ' ') + ' UTC';

interface RoleUse {
  source: GrantSource;
  /** How the role is used, for "… but does not exist in this server". */
  what: string;
  fixMissing: string;
  /** What names the role, for "held back (…)": "Gold’s Discord role on Patreon". */
  label: string;
  /** Who gets it, for "If every … should have that power". */
  whoGetsIt: string;
  /** The other way out of a held-back role than allowing it. */
  instead: string;
  /** The same words as sentences, for a reader of another language. */
  said: { what: Said; fixMissing: Said; label: Said; whoGetsIt: Said; instead: Said };
}

/** Every role the guild's configuration names (tiers' own roles, `/map` rows, settings), with how. */
function rolesInUse(guild: GuildContext): Map<string, RoleUse> {
  const used = new Map<string, RoleUse>();
  for (const tier of guild.tiers) {
    if (tier.removed) continue;
    for (const { roleId, source } of tierRoles(guild, tier)) {
      if (used.has(roleId)) continue;
      used.set(
        roleId,
        source === 'map'
          ? {
              source,
              what: `is mapped to ${tier.title} with /map`,
              fixMissing: `It was deleted: map ${tier.title} to another role with /map (Tierlink then forgets the deleted one).`,
              label: `mapped to ${tier.title} with /map`,
              whoGetsIt: `every patron of ${tier.title}`,
              instead: `unmap it with /unmap tier:${tier.title}`,
              said: {
                what: says('doctorSays.useMapped', { tier: tier.title }),
                fixMissing: says('doctorSays.goneMappedFix', { tier: tier.title }),
                label: says('doctorSays.labelMapped', { tier: tier.title }),
                whoGetsIt: says('doctorSays.whoTier', { tier: tier.title }),
                instead: says('doctorSays.insteadUnmap', { tier: tier.title }),
              },
            }
          : {
              source,
              what: `is ${tier.title}’s Discord role on Patreon`,
              fixMissing: `Set ${tier.title}’s Discord role on Patreon to a role of this server, or map one with /map.`,
              label: `${tier.title}’s Discord role on Patreon`,
              whoGetsIt: `every patron of ${tier.title}`,
              instead: `choose another role for ${tier.title} on Patreon`,
              said: {
                what: says('doctorSays.useTierRole', { tier: tier.title }),
                fixMissing: says('doctorSays.goneTierRoleFix', { tier: tier.title }),
                label: says('doctorSays.labelTierRole', { tier: tier.title }),
                whoGetsIt: says('doctorSays.whoTier', { tier: tier.title }),
                instead: says('doctorSays.insteadPatreon', { tier: tier.title }),
              },
            },
      );
    }
  }
  const { formerPatronRoleId, followerRoleId } = guild.settings;
  if (formerPatronRoleId && !used.has(formerPatronRoleId)) {
    used.set(formerPatronRoleId, {
      source: 'setting',
      what: 'is the former-patron role',
      fixMissing: 'Choose another with /settings former_role, or /settings clear_former_role:true.',
      label: 'the former-patron role',
      whoGetsIt: 'every former patron',
      instead: 'choose another former-patron role with /settings',
      said: {
        what: says('doctorSays.useFormer'),
        fixMissing: says('doctorSays.goneFormerFix'),
        label: says('doctorSays.labelFormer'),
        whoGetsIt: says('doctorSays.whoFormer'),
        instead: says('doctorSays.insteadFormer'),
      },
    });
  }
  if (followerRoleId && !used.has(followerRoleId)) {
    used.set(followerRoleId, {
      source: 'setting',
      what: 'is the follower role',
      fixMissing: 'Choose another with /settings follower_role, or /settings clear_follower_role:true.',
      label: 'the follower role',
      whoGetsIt: 'every follower',
      instead: 'choose another follower role with /settings',
      said: {
        what: says('doctorSays.useFollower'),
        fixMissing: says('doctorSays.goneFollowerFix'),
        label: says('doctorSays.labelFollower'),
        whoGetsIt: says('doctorSays.whoFollower'),
        instead: says('doctorSays.insteadFollower'),
      },
    });
  }
  return used;
}

/** `/doctor`'s line about a role held back for its dangerous permissions, with the way to allow it and the way out. */
function heldBackCheck(
  role: { name: string; heldBack?: { permissions: readonly string[]; gained: boolean } | null },
  use: Pick<RoleUse, 'label' | 'whoGetsIt' | 'instead' | 'said'>,
): DoctorCheck | null {
  const held = role.heldBack;
  if (!held) return null;
  const names = listed(held.permissions);
  const s = held.permissions.length === 1 ? '' : 's';
  const count = held.permissions.length;
  const permissions: Said = { permissions: held.permissions };
  return withSaid(
    {
      name: `Role ${role.name}`,
      ok: false,
      detail: held.gained
        ? `held back: it gained the ${names} permission${s} since the server owner or an administrator allowed it (${use.label})`
        : `held back: it has the ${names} permission${s}, and no server owner or administrator has allowed Tierlink to give it (${use.label})`,
      fix:
        `If ${use.whoGetsIt} should have that power, the server owner or an administrator runs /allow-role role:@${role.name}. ` +
        `Otherwise ${use.instead}, or remove the permission${s} from ${role.name}.`,
    },
    says(held.gained ? 'doctorSays.heldGained' : 'doctorSays.heldHas', { permissions, count, label: use.said.label }),
    says('doctorSays.heldFix', { who: use.said.whoGetsIt, role: role.name, instead: use.said.instead, count }),
  );
}

/**
 * What Discord answered, as Tierlink explains it: English as the problem states it; another
 * language by the problem's code, with Discord's own error code as it answered it.
 */
function discordProblemCheck(name: string, problem: DiscordProblem): DoctorCheck {
  const code = problem.code;
  return withSaid(
    { name, ok: false, detail: problem.message, fix: problem.fix },
    says('doctorSays.discordAnswered', { said: says(`doctorSays.discord.${code}`), code: String(problem.discordCode) }),
    says(`doctorSays.discord.${code}Fix`),
  );
}

export function createDoctor(deps: DoctorDeps): Doctor {
  async function discordChecks(guildId: string): Promise<DoctorCheck[]> {
    const checks: DoctorCheck[] = [];
    deps.snapshots.invalidate(guildId);
    let snapshot;
    try {
      snapshot = await deps.snapshots.get(guildId);
    } catch (error) {
      const problem = error instanceof DiscordProblemError ? error.problem : null;
      if (!problem)
        return [saidCheck('Discord access', false, says('doctorSays.serverUnreadable'), says('doctorSays.serverUnreadableFix'))];
      return [discordProblemCheck('Discord access', problem)];
    }
    const canManage = botCanManageRoles(guildId, snapshot.roles, snapshot.botRoleIds);
    checks.push(
      canManage
        ? saidCheck('Manage Roles permission', true, says('doctorSays.manageOk'), null)
        : saidCheck('Manage Roles permission', false, says('doctorSays.manageMissing'), says('doctorSays.manageFix')),
    );
    const guild = await deps.contexts.load(guildId);
    // Once Manage Roles is missing every role reads "cannot grant": say it once (above), and judge
    // each role as if it were on, so a role that is also above the bot or managed still shows.
    const judged = canManage
      ? guild.roles
      : guildRoles(guildId, {
          ...snapshot,
          roles: snapshot.roles.map((r) =>
            snapshot.botRoleIds.includes(r.id) ? { ...r, permissions: String(BigInt(r.permissions) | MANAGE_ROLES) } : r,
          ),
        });
    const used = rolesInUse(guild);
    const missing = [...used.keys()].filter((id) => !guild.roles.has(id));
    const elsewhere = await findRolesElsewhere(
      { guilds: deps.guilds, roleIdsOf: async (other) => (await deps.snapshots.get(other)).roles.map((r) => r.id) },
      guildId,
      guild.campaignIds,
      missing.filter((id) => used.get(id)!.source === 'chat_role_ids'),
    );
    const problems: DoctorCheck[] = [];
    let here = 0;
    for (const [roleId, use] of used) {
      const role = judged.get(roleId);
      if (!role) {
        if (elsewhere.has(roleId)) continue;
        problems.push(
          withSaid(
            { name: `Role ${roleId}`, ok: false, detail: `${use.what} but does not exist in this server`, fix: use.fixMissing },
            says('doctorSays.roleGone', { what: use.said.what }),
            use.said.fixMissing,
          ),
        );
        continue;
      }
      here += 1;
      if (role.problem) {
        const { message, fix, facts } = role.problem;
        const check = { name: `Role ${role.name}`, ok: false, detail: message, fix };
        problems.push(facts ? withSaid(check, { refusal: facts, part: 'message' }, { refusal: facts, part: 'fix' }) : check);
      }
      // Held back is judged with the server's real permissions and allowances (the guild's context).
      const held = role.problem ? null : heldBackCheck(guild.roles.get(roleId) ?? role, use);
      if (held) problems.push(held);
      // Above whoever connected the campaign whose tier names it (src/core/connector-limit.ts).
      const above = role.problem ? undefined : guild.tiers.find((t) => !t.removed && t.held?.has(roleId))?.held?.get(roleId);
      if (above) {
        const check = { name: `Role ${role.name}`, ok: false, detail: above.message, fix: above.fix };
        problems.push(
          above.facts ? withSaid(check, { refusal: above.facts, part: 'message' }, { refusal: above.facts, part: 'fix' }) : check,
        );
      }
    }
    const joinerRoleId = guild.settings.joinerRoleId ?? null;
    const joiner = joinerRoleId && !used.has(joinerRoleId) ? guild.roles.get(joinerRoleId) : undefined;
    const joinerHeld = joiner
      ? heldBackCheck(joiner, {
          label: 'the joiner role',
          whoGetsIt: 'everyone who joins through the join page',
          instead: 'choose another joiner role with /settings',
          said: {
            what: says('doctorSays.labelJoiner'),
            fixMissing: says('doctorSays.insteadJoiner'),
            label: says('doctorSays.labelJoiner'),
            whoGetsIt: says('doctorSays.whoJoiner'),
            instead: says('doctorSays.insteadJoiner'),
          },
        })
      : null;
    if (joinerHeld) problems.push(joinerHeld);
    checks.push(
      ...(problems.length > 0
        ? problems
        : [
            saidCheck(
              'Role positions',
              true,
              here > 0 ? says('doctorSays.positionsOk', { count: here }) : says('doctorSays.noRolesMapped'),
              null,
            ),
          ]),
    );
    if (here === 0 && guild.campaignIds.length > 0) {
      checks.push(saidCheck('Mappings', false, says('doctorSays.noTierGrants'), says('doctorSays.noTierGrantsFix')));
    }
    const patreonBot = await patreonBotCheck(deps.directory, guild);
    if (patreonBot) checks.push(patreonBot);
    try {
      for await (const _page of deps.directory.listMembers(guildId, { pageSize: 1 })) break;
      checks.push(saidCheck('Server Members Intent', true, says('doctorSays.membersOk'), null));
    } catch (error) {
      const problem = error instanceof DiscordProblemError ? error.problem : null;
      checks.push(
        problem
          ? discordProblemCheck('Server Members Intent', problem)
          : saidCheck('Server Members Intent', false, says('doctorSays.membersMissing'), says('doctorSays.membersFix')),
      );
    }
    // Not a problem: said so that a creator who sees a new member without roles knows why. A failed
    // read only leaves the line out (the server's roles were read above).
    const screening = await deps.directory.getGuild(guildId).then(
      (info) => info.screening,
      () => false,
    );
    if (screening) checks.push(saidCheck('Membership Screening', true, says('doctorSays.screeningOn'), null));
    return checks;
  }

  async function campaignChecks(campaignId: string, announcesPosts: boolean): Promise<DoctorCheck[]> {
    const checks: DoctorCheck[] = [];
    const campaign = await deps.campaigns.get(campaignId);
    const label = campaign?.name ?? `Campaign ${campaignId}`;
    if (!campaign) return [saidCheck(label, false, says('doctorSays.campaignUnknown'), says('doctorSays.connectAgain'))];
    // A source without a creator token or a webhook to register (Ko-fi's page): nothing to check here.
    if (campaign.source !== 'patreon') return [];
    const status = await deps.credentials.status(campaign.creatorUserId);
    const client = deps.accounts.clientForCreator(campaign.creatorUserId);
    let tokenWorks = false;
    if (!status) {
      checks.push(saidCheck(`${label}: Patreon connection`, false, says('doctorSays.noToken'), says('doctorSays.noTokenFix')));
    } else {
      try {
        await client.getCampaign(campaignId);
        tokenWorks = true;
        const missing = status.scopes ? CREATOR_SCOPES.filter((s) => !status.scopes.split(' ').includes(s)) : [];
        checks.push(
          missing.length === 0
            ? saidCheck(`${label}: Patreon connection`, true, says('doctorSays.tokenWorks'), null)
            : saidCheck(
                `${label}: Patreon connection`,
                false,
                says('doctorSays.tokenScopes', { scopes: missing.join(', ') }),
                says('doctorSays.tokenScopesFix'),
              ),
        );
      } catch (error) {
        const kind = error instanceof PatreonApiError ? error.kind : 'unexpected';
        // Read again: the call above may just have tried a refresh and recorded its failure.
        const after = (await deps.credentials.status(campaign.creatorUserId)) ?? status;
        const tokenProblem = ['unauthorized', 'refresh_failed', 'refresh_cooldown', 'not_connected'].includes(kind);
        checks.push(
          tokenProblem
            ? saidCheck(
                `${label}: Patreon connection`,
                false,
                after.refreshFailedAt
                  ? says('doctorSays.tokenRefusedRefresh', { when: day(after.refreshFailedAt) })
                  : says('doctorSays.tokenRefused'),
                says('doctorSays.tokenRefusedFix'),
              )
            : saidCheck(`${label}: Patreon connection`, false, says('doctorSays.patreonDown', { kind }), says('doctorSays.patreonDownFix')),
        );
      }
    }
    checks.push(await webhookCheck(label, campaignId, tokenWorks ? client : null));
    // Only a failure is said: a poll that works needs no line beside the webhook's.
    const pollFailure = announcesPosts && deps.postPollFailure ? await deps.postPollFailure(campaignId) : null;
    if (pollFailure) {
      checks.push(
        saidCheck(
          `${label}: new posts`,
          false,
          says('doctorSays.postsPollFailed', { when: day(pollFailure.at), error: pollFailure.error.slice(0, 200) }),
          says('doctorSays.postsPollFailedFix', { minutes: POST_POLL_INTERVAL_MS / MINUTE }),
        ),
      );
    }
    // Deliveries given up on: those members' roles waited for the nightly sync.
    const givenUp = deps.givenUpDeliveries ? await deps.givenUpDeliveries(campaignId) : null;
    if (givenUp && givenUp.count > 0) {
      checks.push(
        saidCheck(
          `${label}: webhook deliveries`,
          false,
          says('doctorSays.deliveriesGivenUp', { count: givenUp.count, days: GIVEN_UP_DAYS, when: givenUp.last ? day(givenUp.last) : '—' }),
          says('doctorSays.deliveriesGivenUpFix'),
        ),
      );
    }
    return checks;
  }

  /**
   * The webhook as the service reports it now when the creator token works (a webhook pauses
   * between Tierlink's 15-minute checks), else as Tierlink last saw it.
   */
  async function webhookCheck(label: string, campaignId: string, client: Pick<PatreonClient, 'listWebhooks'> | null): Promise<DoctorCheck> {
    const name = `${label}: webhook`;
    const stored = await deps.webhookHealth(campaignId);
    if (stored?.manualSecret) return saidCheck(name, true, says('doctorSays.hookManual'), null);
    let state: { paused: boolean; numConsecutiveTimesFailed: number } | null = null;
    let checkedAt: Date | null = null;
    let live = false;
    if (client) {
      try {
        const listed = campaignWebhooks(await client.listWebhooks(), campaignId, {
          knownIds: new Set(stored?.webhookId ? [stored.webhookId] : []),
          uri: stored?.uri ?? null,
        });
        state =
          listed.find((w) => w.id === stored?.webhookId) ??
          listed.find((w) => w.paused) ??
          listed.find((w) => w.numConsecutiveTimesFailed > 0) ??
          listed[0] ??
          null;
        live = true;
      } catch {
        live = false;
      }
    }
    if (!live) {
      state = stored?.registered ? stored : null;
      checkedAt = stored?.checkedAt ?? null;
    }
    // "as last checked" when the state is Tierlink's last look rather than Patreon's answer now.
    const asOf = (said: Said): Said => (checkedAt ? says('doctorSays.asOf', { said, when: day(checkedAt) }) : said);
    if (!state) return saidCheck(name, false, asOf(says('doctorSays.hookNone')), says('doctorSays.hookNoneFix'));
    const failures = state.numConsecutiveTimesFailed;
    if (state.paused || failures > 0) {
      const detail = state.paused
        ? failures > 0
          ? says('doctorSays.hookPausedAfter', { count: failures })
          : says('doctorSays.hookPaused')
        : says('doctorSays.hookFailing', { count: failures });
      return saidCheck(name, false, asOf(detail), says('doctorSays.hookFix'));
    }
    return saidCheck(name, true, asOf(says('doctorSays.hookOk')), null);
  }

  return {
    async run(guildId: string): Promise<DoctorCheck[]> {
      const campaignIds = await deps.guilds.campaignsOf(guildId);
      const checks: DoctorCheck[] = [];
      if (campaignIds.length === 0) checks.push(unboundServerCheck(guildId, deps.environmentBinding));
      checks.push(...(await discordChecks(guildId)));
      if (deps.gateway) checks.push(...gatewayCheck(await deps.gateway.standing(), guildId));
      if (deps.application) checks.push(...(await botInviteCheck(deps.application)));
      const announcesPosts = campaignIds.length > 0 && (await deps.guilds.channels(guildId)).announcePostsChannelId !== null;
      for (const campaignId of campaignIds) checks.push(...(await campaignChecks(campaignId, announcesPosts)));
      const unreadable = await unreadableMembersCheck(deps.members, campaignIds);
      if (unreadable) checks.push(unreadable);
      const odd = await oddValuesCheck(deps.accounts);
      if (odd) checks.push(odd);
      checks.push(...(await syncChecks(deps, guildId)));
      if (deps.joinPage && campaignIds.length > 0) checks.push(await deps.joinPage(guildId));
      if (deps.backups) checks.push(await deps.backups());
      return checks;
    },
  };
}

/**
 * The `/doctor` reply: problems first with their fixes, or "all good", in the asker's language: the
 * checks' names by `checkName`, their details and fixes by `said` where the check gives it (the
 * checks that pass on what Discord or a deeper service said stay English).
 */
export function renderDoctor(checks: readonly DoctorCheck[], t: T = translator('en')): string {
  const problems = checks.filter((c) => !c.ok);
  const lines = problems.length === 0 ? [t('doctor.allGood')] : [t('doctor.problems', { count: problems.length })];
  for (const c of problems)
    lines.push(
      `❌ **${checkName(t, c.name)}**: ${checkDetail(t, c)}\n   ${t('doctor.fix', { fix: checkFix(t, c) ?? t('doctor.seeAbove') })}`,
    );
  for (const c of checks.filter((x) => x.ok)) lines.push(`✅ **${checkName(t, c.name)}**: ${checkDetail(t, c)}`);
  return lines.join('\n').slice(0, 1990);
}

/**
 * Checks everything that makes roles fail, the first support problem of every bot of this kind:
 * the bot's permission, each mapped role's position and kind, Patreon's own bot managing the same
 * roles, the members intent, the creator's connection, the webhook, members Patreon answered
 * with values that cannot be read, and the last sync. Each problem comes with the fix.
 */
export interface Doctor {
  run(guildId: string): Promise<DoctorCheck[]>;
}

/**
 * A check's name in the reader's language: the fixed names by key (`doctor.check.*`), a campaign's
 * connection and webhook and a role by their patterns; English keeps the name as the check gives it.
 */
export function checkName(t: T, name: string): string {
  if (t.locale === 'en') return name;
  const key = `doctor.check.${name}`;
  if (key in ENGLISH) return t(key as Extract<MessageKey, `doctor.check.${string}`>);
  const connection = /^(.+): Patreon connection$/.exec(name);
  if (connection) return t('doctor.checkConnection', { label: connection[1]! });
  const webhook = /^(.+): webhook$/.exec(name);
  if (webhook) return t('doctor.checkWebhook', { label: webhook[1]! });
  const deliveries = /^(.+): webhook deliveries$/.exec(name);
  if (deliveries) return t('doctor.checkDeliveries', { label: deliveries[1]! });
  const posts = /^(.+): new posts$/.exec(name);
  if (posts) return t('doctor.checkPosts', { label: posts[1]! });
  const role = /^Role (.+)$/.exec(name);
  if (role) return t('doctor.checkRole', { role: role[1]! });
  return name;
}
