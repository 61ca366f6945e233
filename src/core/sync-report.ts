import type { Adoption, RoleChange, UserPlan } from './planner/types';
import type { ReasonCode } from './planner/reasons';

/**
 * What a full sync did (or, on a dry run, would do), as plain data: the CLI prints it, `--json`
 * prints it as it is, and `/sync` edits its deferred reply with {@link formatSyncReport}. Pure.
 */

/**
 * What started the run: the nightly schedule, `/sync`, `npm run sync`, a heal after a webhook gap,
 * a guild-wide apply after `/map` or `/settings` changed what the roles should be, or the resumption at
 * start of a run a stopped process left.
 */
export type SyncTrigger = 'schedule' | 'manual' | 'cli' | 'webhook-heal' | 'map' | 'settings' | 'resume';

/** `ok`: everything planned was attempted. `held`: removals held back by the threshold. `failed`: a read failed, so no removal was made. */
export type SyncStatus = 'ok' | 'held' | 'failed';

/**
 * - `planned`: a dry run's change.
 * - `applied` / `failed`: Discord accepted or refused it (or the ledger row was dropped, for `forget`).
 * - `held`: a removal held back by the threshold or by a read error.
 * - `blocked`: the bot cannot manage the role; no request was sent.
 * - `skipped`: not attempted because Discord stopped answering during the run.
 * - `superseded`: not applied because the member was reconciled on their own (a webhook, a link)
 *   after this plan was made, from fresher state.
 */
export type ChangeOutcome = 'planned' | 'applied' | 'failed' | 'held' | 'blocked' | 'skipped' | 'superseded';

export interface SyncChange {
  userId: string;
  username: string | null;
  /**
   * `forget`: the ledger said we granted a role the member no longer has; only the row goes.
   * `adopt`: a role the member already held, recorded as Tierlink's grant (no request).
   */
  op: 'add' | 'remove' | 'forget' | 'adopt';
  roleId: string;
  roleName: string | null;
  reason: string;
  /** `reason` as a code, for readers of another language (src/core/reason-text.ts); absent: said as `reason`. */
  why?: ReasonCode;
  outcome: ChangeOutcome;
  /** Why it failed or is blocked, and the fix. */
  problem?: string;
}

/** A member the service answered with something Tierlink cannot read. */
export interface UnreadableMemberLine {
  memberId: string;
  attribute: string;
  reason: string;
}

/** How many unreadable members a campaign's report names (all are counted). */
export const UNREADABLE_LISTED = 20;

export interface CampaignSyncReport {
  campaignId: string;
  /** The listing reached its last page without an error. */
  complete: boolean;
  pages: number;
  members: number;
  /** Links made (or, on a dry run, that would be made) from `social_connections`. */
  linksMade: number;
  /** Snapshots of members the complete listing no longer holds, deleted. */
  staleSnapshotsDeleted: number;
  /**
   * Members whose state could not be read (an unknown `patron_status`, an unexpected null): their
   * roles were left exactly as they are. Counted in `members` too.
   */
  unreadable: number;
  /** The first {@link UNREADABLE_LISTED} of them, with the attribute and why. */
  unreadableMembers: UnreadableMemberLine[];
  error: string | null;
  apiCalls: Record<string, number>;
}

export interface GuildSyncReport {
  /** The `sync_runs` row. */
  runId: number | null;
  guildId: string;
  guildName: string | null;
  campaignIds: string[];
  status: SyncStatus;
  startedAt: string;
  finishedAt: string;
  discord: { pages: number; members: number };
  /** Members of the guild with a link to a service account. */
  linkedMembers: number;
  /** Members planned: the linked, those we granted roles, and in strict mode holders of a managed role. */
  usersPlanned: number;
  /**
   * Members Tierlink knows who have not accepted the server's rules yet (Membership Screening): not
   * planned, since a role would let them skip the rules; they get their roles when they accept.
   * Absent: none (and reports written before it was counted).
   */
  pendingMembers?: number;
  /** Roles the ledger says we hold in the guild, before the run: the base of the threshold. */
  ourGrants: number;
  planned: { adds: number; removes: number; forgets: number; blocked: number };
  applied: { adds: number; removes: number; forgets: number };
  failed: number;
  /** Removals held back: `reason` in English (recorded as it is), `why` its facts for a reader of another language. */
  held: { removals: number; reason: string; why?: HeldWhy } | null;
  /**
   * On an adopting run (`/sync adopt:true`, `npm run sync -- --adopt`): the roles entitled members
   * already held that Tierlink did not grant, and how many were recorded as its grants (0 on a dry
   * run). Null on other runs.
   */
  adoptions: { planned: number; recorded: number } | null;
  /**
   * The run a stopped process left running that this one took over: how many changes it had
   * applied of its plan. They are not sent again (this run planned from the server as it is now).
   */
  resumed: { runId: number; appliedBefore: number; plannedBefore: number } | null;
  errors: string[];
  apiCalls: Record<string, number>;
  /** How many changes were planned (added, removed, ledger fixes, blocked). */
  changeCount: number;
  /** The first changes (at most `LISTED_CHANGES` of the full sync, src/app/sync/guild-sync.ts; the audit log keeps all), in member order. */
  changes: SyncChange[];
}

export interface SyncReport {
  trigger: SyncTrigger;
  dryRun: boolean;
  forced: boolean;
  status: SyncStatus;
  startedAt: string;
  finishedAt: string;
  timing: {
    wallMs: number;
    /** Wall time during which Discord's rate limits held requests back (overlapping waits count once). */
    rateLimitWaitMs: number;
    /** `wallMs - rateLimitWaitMs`: what the run costs us. */
    busyMs: number;
  };
  campaigns: CampaignSyncReport[];
  guilds: GuildSyncReport[];
  /** How many guilds this run handed to the instances' job workers instead of syncing them itself (then `guilds` is empty). */
  spreadGuilds?: number;
  /** Requests per `api METHOD route` during the run. */
  apiCalls: Record<string, number>;
  /** Problems that are not a campaign's or a guild's (e.g. nothing to sync). */
  errors: string[];
}

/** Where a running sync of one server is (its `sync_runs` row), for `/sync`, `/doctor` and the CLI. */
export interface SyncProgress {
  runId: number;
  guildId: string | null;
  startedAt: string;
  phase: 'campaigns' | 'members' | 'applying' | 'finishing' | null;
  /** Members of the campaigns read so far, and of the server. */
  campaignMembersRead: number;
  serverMembersRead: number;
  /** Changes planned (adds and removes) and done so far (applied or failed). */
  changesPlanned: number;
  changesDone: number;
  estimatedEndAt: string | null;
  /** When the row was last written. */
  updatedAt: string | null;
}

/** What `runNow` answers when another run (in this process or another instance) holds the lock. */
export interface SkippedSync {
  skipped: true;
  reason: string;
  /** The runs in progress, when known. */
  running?: SyncProgress[];
}

const clockTime = (iso: string): string => `${iso.slice(0, 16).replace('T', ' ')} UTC`;

/** "applying: 30,000 members read, 1,234 of 12,695 changes applied, started 2026-11-20 04:00 UTC, estimated end 07:31 UTC". */
export function progressLine(p: SyncProgress): string {
  const phase =
    p.phase === 'campaigns'
      ? `reading the campaign's members: ${n(p.campaignMembersRead)} read`
      : p.phase === 'members'
        ? `reading the server's members: ${n(p.serverMembersRead)} read (${n(p.campaignMembersRead)} of the campaign)`
        : p.phase === 'applying'
          ? `applying: ${n(p.changesDone)} of ${n(p.changesPlanned)} changes done (${n(p.serverMembersRead)} members read)`
          : 'finishing';
  const end = p.phase === 'applying' && p.estimatedEndAt ? `, estimated end ${clockTime(p.estimatedEndAt)}` : '';
  return `${phase}; started ${clockTime(p.startedAt)}${end}`;
}

export interface FormatOptions {
  /** The report object as JSON (`npm run sync -- --json`). */
  json?: boolean;
  /** Changes listed per guild; all when absent (`/sync` shows 20). */
  limit?: number;
  /** Cut the text to this many characters (Discord messages hold 2,000). */
  maxLength?: number;
}

const n = (value: number): string => value.toLocaleString('en-US');
const plural = (count: number, one: string, many = `${one}s`): string => `${n(count)} ${count === 1 ? one : many}`;

function seconds(ms: number): string {
  return ms < 10_000 ? `${(ms / 1000).toFixed(1)} s` : `${Math.round(ms / 1000)} s`;
}

function changeLine(change: SyncChange): string {
  const who = change.username ? `${change.username} (${change.userId})` : change.userId;
  const role = change.roleName ?? change.roleId;
  const head =
    change.op === 'add'
      ? `+ ${role} to ${who}`
      : change.op === 'remove'
        ? `- ${role} from ${who}`
        : change.op === 'adopt'
          ? `= ${role} of ${who} (now Tierlink’s)`
          : `~ ${role} of ${who} (ledger only)`;
  const tag =
    change.outcome === 'applied' || change.outcome === 'planned'
      ? ''
      : ` [${change.outcome}${change.problem ? `: ${change.problem}` : ''}]`;
  return `${head}: ${change.reason}${tag}`;
}

function guildLines(guild: GuildSyncReport, dryRun: boolean, limit: number | undefined): string[] {
  const lines: string[] = [];
  const title = guild.guildName ? `${guild.guildName} (${guild.guildId})` : guild.guildId;
  lines.push(`${title}: ${guild.status === 'ok' ? 'ok' : guild.status.toUpperCase()}`);
  lines.push(
    `  Discord: ${plural(guild.discord.pages, 'page')}, ${plural(guild.discord.members, 'member')}, ${n(guild.linkedMembers)} linked` +
      `${guild.pendingMembers ? ` (${n(guild.pendingMembers)} not through the server's rules yet)` : ''}; ` +
      `${plural(guild.ourGrants, 'role')} granted by Tierlink before the run`,
  );
  const p = guild.planned;
  lines.push(
    `  ${dryRun ? 'Would change' : 'Planned'}: ${n(p.adds)} to add, ${n(p.removes)} to remove` +
      `${p.forgets > 0 ? `, ${n(p.forgets)} ledger ${p.forgets === 1 ? 'fix' : 'fixes'}` : ''}${p.blocked > 0 ? `, ${n(p.blocked)} blocked` : ''}`,
  );
  if (!dryRun) {
    lines.push(
      `  Applied: ${n(guild.applied.adds)} added, ${n(guild.applied.removes)} removed${guild.failed > 0 ? `, ${n(guild.failed)} failed` : ''}`,
    );
  }
  if (guild.held) lines.push(`  ${dryRun ? 'Would hold' : 'Held'} ${plural(guild.held.removals, 'removal')}: ${guild.held.reason}`);
  if (guild.resumed) {
    const { runId, appliedBefore, plannedBefore } = guild.resumed;
    lines.push(
      `  Resumed run #${runId}, which stopped after ${n(appliedBefore)} of ${plural(plannedBefore, 'change')}; what it applied was not sent again`,
    );
  }
  if (guild.adoptions) {
    const { planned, recorded } = guild.adoptions;
    lines.push(
      dryRun
        ? `  Would adopt: ${plural(planned, 'role')} entitled patrons already hold (recorded as Tierlink’s grants, so they go when the pledge ends)`
        : `  Adopted: ${plural(recorded, 'role')} entitled patrons already held, now Tierlink’s grants (removed when the pledge ends)`,
    );
  }
  for (const error of guild.errors) lines.push(`  Error: ${error}`);
  if (guild.changes.length > 0) {
    const shown = limit === undefined ? guild.changes : guild.changes.slice(0, limit);
    const total = Math.max(guild.changeCount, guild.changes.length);
    lines.push(shown.length < total ? `  Changes (first ${n(shown.length)} of ${n(total)}):` : '  Changes:');
    for (const change of shown) lines.push(`  ${changeLine(change)}`);
  }
  return lines;
}

/** The report for people (CLI, `/sync`), or as JSON. */
export function formatSyncReport(report: SyncReport | SkippedSync, options: FormatOptions = {}): string {
  if (options.json) return JSON.stringify(report, null, 2);
  if ('skipped' in report) {
    const running = (report.running ?? []).map((p) => `  Running${p.guildId ? ` (server ${p.guildId})` : ''}: ${progressLine(p)}`);
    return fit([`Full sync skipped: ${report.reason}`, ...running], options.maxLength);
  }
  const lines: string[] = [];
  const kind = report.dryRun ? 'Full sync, dry run (nothing was changed)' : report.forced ? 'Full sync (forced)' : 'Full sync';
  const waited =
    report.timing.rateLimitWaitMs >= 1000 ? `, ${seconds(report.timing.rateLimitWaitMs)} of it waiting on Discord's rate limits` : '';
  lines.push(`${kind}: ${report.status === 'ok' ? 'ok' : report.status.toUpperCase()} in ${seconds(report.timing.wallMs)}${waited}`);
  for (const c of report.campaigns) {
    const links = c.linksMade > 0 ? `, ${plural(c.linksMade, 'new link')}` : '';
    const stale =
      c.staleSnapshotsDeleted > 0
        ? `, ${n(c.staleSnapshotsDeleted)} departed ${c.staleSnapshotsDeleted === 1 ? 'member' : 'members'} forgotten`
        : '';
    const unreadable = c.unreadable > 0 ? `, ${plural(c.unreadable, 'unreadable member')} (roles left as they are)` : '';
    lines.push(
      `Campaign ${c.campaignId}: ${plural(c.pages, 'page')}, ${plural(c.members, 'member')}${unreadable}${links}${stale}${c.error ? `; ERROR: ${c.error}` : ''}`,
    );
    for (const u of c.unreadableMembers) lines.push(`  Unreadable: member ${u.memberId}: ${u.attribute} ${u.reason}`);
    if (c.unreadable > c.unreadableMembers.length)
      lines.push(`  … ${plural(c.unreadable - c.unreadableMembers.length, 'more unreadable member')}`);
  }
  for (const error of report.errors) lines.push(`Error: ${error}`);
  if (report.guilds.length === 0 && report.errors.length === 0) lines.push('No server serves a campaign yet: run /connect in a server.');
  for (const guild of report.guilds) lines.push(...guildLines(guild, report.dryRun, options.limit));
  return fit(lines, options.maxLength);
}

/** Whole lines up to `maxLength`, then how many were left out. */
function fit(lines: string[], maxLength: number | undefined): string {
  const text = lines.join('\n');
  if (maxLength === undefined || text.length <= maxLength) return text;
  const kept: string[] = [];
  let length = 0;
  for (let i = 0; i < lines.length; i += 1) {
    const line = lines[i]!;
    const note = `… ${plural(lines.length - i, 'more line')}`;
    if (length + line.length + 1 + note.length > maxLength) {
      kept.push(note);
      break;
    }
    kept.push(line);
    length += line.length + 1;
  }
  const out = kept.join('\n');
  return out.length <= maxLength ? out : `${out.slice(0, maxLength - 1)}…`;
}

/** A member's plan in a run, and the name to show. */
export interface PlannedMember {
  plan: UserPlan;
  username: string | null;
  /** On an adopting run: the roles the member already holds that become Tierlink's. */
  adoptions?: readonly Adoption[];
}

/** What became of a member's changes when applied. */
export interface AppliedMember {
  applied: ReadonlySet<RoleChange>;
  failed: ReadonlyMap<RoleChange, { message: string; fix: string | null }>;
  superseded: boolean;
}

/** Every change of the planned members, with what became of it (`results` null: a dry run). */
export function changeLines(
  pending: readonly PlannedMember[],
  removalsHeld: boolean,
  results: ReadonlyMap<UserPlan, AppliedMember> | null,
  /** What became of the adoptions: `planned` (a dry run), `applied` (recorded) or `failed`. */
  adopted: 'planned' | 'applied' | 'failed' = 'planned',
  /** At most this many lines (the first). */
  limit = Infinity,
): SyncChange[] {
  const out: SyncChange[] = [];
  for (const { plan, username, adoptions = [] } of pending) {
    if (out.length >= limit) break;
    for (const a of adoptions) {
      out.push({
        userId: plan.userId,
        username,
        op: 'adopt',
        roleId: a.roleId,
        roleName: a.roleName,
        reason: a.reason,
        ...(a.why ? { why: a.why } : {}),
        outcome: adopted,
      });
    }
    const outcome = results?.get(plan);
    for (const change of plan.changes) {
      const line: SyncChange = {
        userId: plan.userId,
        username,
        op: change.op,
        roleId: change.roleId,
        roleName: change.roleName,
        reason: change.reason,
        ...(change.why ? { why: change.why } : {}),
        outcome: 'planned',
      };
      const failed = outcome?.failed.get(change);
      if (change.op === 'remove' && removalsHeld) line.outcome = 'held';
      else if (results === null) line.outcome = 'planned';
      else if (outcome?.applied.has(change)) line.outcome = 'applied';
      else if (failed) {
        line.outcome = 'failed';
        line.problem = failed.fix ? `${failed.message} ${failed.fix}` : failed.message;
      } else if (outcome?.superseded) line.outcome = 'superseded';
      else line.outcome = 'skipped';
      out.push(line);
    }
    for (const blocked of plan.blocked) {
      out.push({
        userId: plan.userId,
        username,
        op: blocked.op,
        roleId: blocked.roleId,
        roleName: blocked.roleName,
        reason: blocked.reason,
        ...(blocked.why ? { why: blocked.why } : {}),
        outcome: 'blocked',
        problem: `${blocked.problem.message} ${blocked.problem.fix}`,
      });
    }
  }
  return out.slice(0, limit);
}

/**
 * Why a run held its removals back: a page could not be read (`unreadable`), or the removals are
 * over the server's mass-removal guard (`threshold`: their share of Tierlink's grants, in percent,
 * and the guard's percentage and minimum).
 */
export type HeldWhy =
  { code: 'unreadable' } | { code: 'threshold'; removals: number; share: number; grants: number; percent: number; min: number };
