import type { AuditQuery } from '../../../../app/dashboard/audit';
import type { FollowUp } from '../../../../app/dashboard/configuration';
import { ACTIONS, OUTCOMES, TRIGGER_LABELS } from '../../../../app/dashboard/views';
import type { SettingsRequest } from '../../../../app/admin/settings-service';
import { WELCOME_NAMES, type WelcomeNames } from '../../../../core/channel-posts';
import { CHANNEL_SETTINGS, type ChannelSetting } from '../../../../core/guild-channels';
import { DAY } from '../../../../shared/clock';
import { type T, isLocale, translator } from '../../../../core/i18n';
import type { AuditFilterForm } from './render-audit';

const ENGLISH_T = translator('en');

/** Parsing of what browsers send: every value is checked here, and what fails is named for the person. */

export const SNOWFLAKE = /^\d{17,20}$/;

export function text(value: unknown, max = 200): string {
  return typeof value === 'string' ? value.trim().slice(0, max) : '';
}

function day(value: string): Date | null {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(value)) return null;
  const date = new Date(`${value}T00:00:00Z`);
  return Number.isNaN(date.getTime()) || date.toISOString().slice(0, 10) !== value ? null : date;
}

/** The audit log's filters from the query string; a malformed one is dropped and named. */
export function parseAuditFilter(query: Record<string, unknown>): { form: AuditFilterForm; query: AuditQuery; problems: string[] } {
  const form: AuditFilterForm = {
    member: text(query.member, 30),
    role: text(query.role, 30),
    trigger: text(query.trigger, 30),
    outcome: text(query.outcome, 30),
    action: text(query.action, 30),
    from: text(query.from, 10),
    to: text(query.to, 10),
  };
  const out: AuditQuery = {};
  const problems: string[] = [];
  const drop = (key: keyof AuditFilterForm, sentence: string) => {
    problems.push(sentence);
    form[key] = '';
  };
  if (form.member) {
    if (SNOWFLAKE.test(form.member)) out.discordUserId = form.member;
    else drop('member', 'The member filter takes a Discord user id (17 to 20 digits); it was left out.');
  }
  if (form.role) {
    if (SNOWFLAKE.test(form.role)) out.roleId = form.role;
    else drop('role', 'That role filter is not a role id; it was left out.');
  }
  if (form.trigger) {
    if (form.trigger in TRIGGER_LABELS) out.trigger = form.trigger;
    else drop('trigger', 'That trigger is not one Tierlink records; it was left out.');
  }
  if (form.outcome) {
    const outcome = OUTCOMES.find((o) => o === form.outcome);
    if (outcome) out.outcome = outcome;
    else drop('outcome', 'That outcome is not one Tierlink records; it was left out.');
  }
  if (form.action) {
    const action = ACTIONS.find((a) => a === form.action);
    if (action) out.action = action;
    else drop('action', 'That kind of change is not one Tierlink records; it was left out.');
  }
  if (form.from) {
    const from = day(form.from);
    if (from) out.from = from;
    else drop('from', 'The “from” date must be a date (YYYY-MM-DD); it was left out.');
  }
  if (form.to) {
    const to = day(form.to);
    if (to) out.to = new Date(to.getTime() + DAY);
    else drop('to', 'The “to” date must be a date (YYYY-MM-DD); it was left out.');
  }
  return { form, query: out, problems };
}

/**
 * The settings form, complete: every field is sent, so every setting is part of the change. What
 * cannot be read is named in the reader's language (`t`, the signed-in user's).
 */
export function parseSettingsForm(body: Record<string, unknown>, t: T = ENGLISH_T): { change: SettingsRequest; problems: string[] } {
  const change: SettingsRequest = {};
  const problems: string[] = [];
  const integer = (name: string, field: string): number | undefined => {
    const value = text(body[name], 12);
    if (!/^-?\d+$/.test(value)) {
      problems.push(t('dashForm.whole', { field }));
      return undefined;
    }
    return Number(value);
  };
  const grace = integer('grace_days', t('dashForm.grace'));
  if (grace !== undefined) change.graceDays = grace;
  const percent = integer('removal_threshold_percent', t('dashForm.guardPercent'));
  if (percent !== undefined) change.removalThresholdPercent = percent;
  const min = integer('removal_threshold_min', t('dashForm.guardMin'));
  if (min !== undefined) change.removalThresholdMin = min;
  const mode = text(body.mode, 10);
  if (mode === 'stack' || mode === 'highest') change.mode = mode;
  else problems.push(t('dashForm.mode'));
  for (const [field, key, problem] of [
    ['former_role', 'formerPatronRoleId', 'dashForm.former'],
    ['follower_role', 'followerRoleId', 'dashForm.follower'],
  ] as const) {
    const value = text(body[field], 30);
    if (value === '') change[key] = null;
    else if (SNOWFLAKE.test(value)) change[key] = value;
    else problems.push(t(problem));
  }
  change.strict = body.strict === 'on';
  change.freeTiersGrantRoles = body.free_tiers_grant_roles === 'on';
  // The server's choices (Manage Server): only when the form has them.
  if (body.welcome_names !== undefined) {
    const names = text(body.welcome_names, 20);
    if ((WELCOME_NAMES as readonly string[]).includes(names)) change.welcomeNames = names as WelcomeNames;
    else problems.push(t('dashForm.welcomeNames'));
  }
  if (body.preview_threshold !== undefined) {
    const threshold = integer('preview_threshold', t('dashForm.previewThreshold'));
    if (threshold !== undefined) change.previewThreshold = threshold;
  }
  if (body.server_language !== undefined) {
    const language = text(body.server_language, 10);
    if (language === 'discord') change.locale = null;
    else if (isLocale(language)) change.locale = language;
    else problems.push(t('dashForm.language'));
  }
  if (body.choices === 'on') {
    change.patronMessages = body.patron_messages === 'on';
    change.linkMessages = body.link_messages === 'on';
  }
  return { change, problems };
}

/** The channels form: each of the three is a channel of the server or none (off). */
export function parseChannelsForm(
  body: Record<string, unknown>,
  t: T = ENGLISH_T,
): { wanted: Record<ChannelSetting, string | null>; problems: string[] } {
  const wanted: Record<ChannelSetting, string | null> = { modLog: null, announcePatrons: null, announcePosts: null };
  const problems: string[] = [];
  for (const key of Object.keys(CHANNEL_SETTINGS) as ChannelSetting[]) {
    const { option } = CHANNEL_SETTINGS[key];
    const value = text(body[option], 30);
    if (value === '') wanted[key] = null;
    else if (SNOWFLAKE.test(value)) wanted[key] = value;
    else problems.push(t(`dashForm.channel.${key}`));
  }
  return { wanted, problems };
}

/** What the roles update after a change did, in one sentence (empty when nothing was to update). */
export function describeFollowUp(followUp: FollowUp | null, t: T = ENGLISH_T): string {
  if (!followUp) return '';
  switch (followUp.kind) {
    case 'applied':
      return t('dashFlash.updated', {
        changes: t('apply.changes', { count: followUp.changes }),
        members: t('apply.members', { count: followUp.members }),
      });
    case 'queued':
      return t('apply.queued');
    case 'running':
      return t('dashFlash.updating');
    case 'failed':
      return t('dashFlash.updateFailed');
  }
}
