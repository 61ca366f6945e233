/**
 * The messages Tierlink posts in a guild's channels, composed from stored facts only (ids, titles,
 * reasons), so composing the same batch again after a restart gives the same messages. Limits are
 * Discord's (docs/discord-api-notes.md §9): content 2,000 characters, an embed description 4,096,
 * a title 256, a field value 1,024, 6,000 characters for all of a message's embeds.
 */

import { ENGLISH, type MessageKey, type T, translator } from './i18n';
import type { ReasonCode } from './planner/reasons';
import { reasonText } from './reason-text';

/** One audited role change, as the mod-log reads it. */
export interface ModLogChange {
  userId: string;
  roleId: string;
  action: 'add' | 'remove';
  outcome: 'applied' | 'failed' | 'held' | 'blocked';
  trigger: string;
  reason: string;
  /** `reason` as a code; null on rows written before codes were (said as recorded). */
  why?: ReasonCode | null;
  error: string | null;
}

export interface ComposedMessage {
  content?: string;
  embeds?: Array<Record<string, unknown>>;
}

/** Member lines one batch lists; the rest are counted in a closing line. */
export const MOD_LOG_MAX_LINES = 40;
/** Under the 4,096 of an embed description, with room for the closing line. */
const DESCRIPTION_BUDGET = 3_600;
const LINE_MAX = 600;
const REASON_MAX = 120;

const chars = (text: string) => [...text].length;

const ENGLISH_T = translator('en');

/** What started a change, as the mod-log names it: the trigger itself in English, its label in another language. */
function triggerName(t: T, trigger: string): string {
  const key = `trigger.${trigger}`;
  return t.locale === 'en' || !(key in ENGLISH) ? trigger : t(key as Extract<MessageKey, `trigger.${string}`>);
}

export function clip(text: string, max: number): string {
  const all = [...text];
  return all.length <= max ? text : `${all.slice(0, max - 1).join('')}…`;
}

/** Outside text (a name, a title) shown as plain text: Markdown and mentions neutralised, one line. */
export function plainText(text: string, max: number): string {
  const oneLine = text.replace(/[\r\n\t]+/g, ' ').trim();
  const escaped = oneLine.replace(/([\\*_~`|>#[\]()<:-])/g, '\\$1').replace(/@/g, '@\u200b');
  return clip(escaped, max);
}

function changeMark(t: T, change: ModLogChange): string {
  const sign = change.action === 'add' ? '+' : '−';
  const role = `${sign}<@&${change.roleId}>`;
  switch (change.outcome) {
    case 'applied':
      return role;
    case 'held':
      return `${role} ${t('post.modLog.held')}`;
    case 'blocked':
      return `${role} ${t('post.modLog.blocked')}`;
    case 'failed': {
      const code = change.error ? change.error.split(':')[0] : 'failed';
      return `${role} ${t('post.modLog.failed', { code: clip(code ?? 'failed', 40) })}`;
    }
  }
}

interface Group {
  userId: string;
  trigger: string;
  changes: ModLogChange[];
}

/** Changes grouped per member and trigger, in the order each group first appears. */
export function groupChanges(changes: readonly ModLogChange[]): Group[] {
  const groups = new Map<string, Group>();
  for (const change of changes) {
    const key = `${change.userId}\u0000${change.trigger}`;
    const group = groups.get(key);
    if (group) group.changes.push(change);
    else groups.set(key, { userId: change.userId, trigger: change.trigger, changes: [change] });
  }
  return [...groups.values()];
}

function groupLine(t: T, group: Group): string {
  const reasons = [...new Set(group.changes.map((c) => reasonText(t, c)))];
  const why = clip(reasons.join('; '), REASON_MAX);
  const marks = group.changes.map((c) => changeMark(t, c)).join(' ');
  return clip(`<@${group.userId}> · ${triggerName(t, group.trigger)}: ${marks} · ${why}`, LINE_MAX);
}

function summaryLine(t: T, rest: Group[]): string {
  const byTrigger = new Map<string, { adds: number; removes: number }>();
  for (const group of rest) {
    const count = byTrigger.get(group.trigger) ?? { adds: 0, removes: 0 };
    for (const c of group.changes) {
      if (c.action === 'add') count.adds += 1;
      else count.removes += 1;
    }
    byTrigger.set(group.trigger, count);
  }
  const parts = [...byTrigger].map(([trigger, n]) =>
    t('post.modLog.moreTrigger', { trigger: triggerName(t, trigger), adds: n.adds, removes: n.removes }),
  );
  return t('post.modLog.more', { count: rest.length, summary: parts.join('; ') });
}

/**
 * One batch of role changes as mod-log messages: a line per member and trigger (the roles added
 * and removed, what became of each, why), at most {@link MOD_LOG_MAX_LINES} lines and a count of
 * the rest, split into messages of one embed each. Mentions render as names and ping no one (the
 * messages are sent with `allowed_mentions` empty). In the server's language (`t`), the reasons
 * too where the audit log recorded their codes (src/core/reason-text.ts); older rows as recorded.
 */
export function composeModLog(changes: readonly ModLogChange[], t: T = ENGLISH_T): ComposedMessage[] {
  const groups = groupChanges(changes);
  if (groups.length === 0) return [];
  const listed = groups.slice(0, MOD_LOG_MAX_LINES).map((g) => groupLine(t, g));
  const rest = groups.slice(MOD_LOG_MAX_LINES);
  if (rest.length > 0) listed.push(summaryLine(t, rest));
  const descriptions: string[] = [];
  let current: string[] = [];
  let size = 0;
  for (const line of listed) {
    if (current.length > 0 && size + chars(line) + 1 > DESCRIPTION_BUDGET) {
      descriptions.push(current.join('\n'));
      current = [];
      size = 0;
    }
    current.push(line);
    size += chars(line) + 1;
  }
  if (current.length > 0) descriptions.push(current.join('\n'));
  const total = changes.length;
  return descriptions.map((description, i) => ({
    embeds: [
      {
        title: descriptions.length > 1 ? t('post.modLog.titlePart', { part: i + 1, parts: descriptions.length }) : t('post.modLog.title'),
        description,
        footer: { text: t('post.modLog.footer', { count: total }) },
      },
    ],
  }));
}

/**
 * How a server's welcomes name a new patron (`/settings welcome_names:`): their Discord mention
 * (shown, never pinged), their name in the server, or nobody.
 */
export type WelcomeNames = 'mention' | 'display_name' | 'none';
export const WELCOME_NAMES: readonly WelcomeNames[] = ['mention', 'display_name', 'none'];

/** What a welcome may know of the new patron, to decide whether to name them. */
export interface WelcomeSubject {
  /** The Discord account linked to the membership; null: not linked. */
  discordUserId: string | null;
  /** Their name in the server; null when they are not in it. */
  nameInServer: string | null;
  /** Patreon's `hide_pledges`; null when no read said (then it is not known to be public). */
  hidesPledges: boolean | null;
  /** They chose with `/privacy` not to be named in announcements. */
  optedOut: boolean;
}

export type WelcomeWho = { kind: 'mention'; userId: string } | { kind: 'name'; name: string } | null;

/**
 * Whom a welcome names: only a member who is linked and in the server, who does not keep their
 * pledges private on Patreon and did not opt out, and only as the server's policy allows. Never a
 * Patreon name: it is often a person's real name, and the welcome is public.
 */
export function welcomeWho(policy: WelcomeNames, s: WelcomeSubject): WelcomeWho {
  if (policy === 'none' || s.discordUserId === null || s.nameInServer === null || s.hidesPledges !== false || s.optedOut) return null;
  return policy === 'mention' ? { kind: 'mention', userId: s.discordUserId } : { kind: 'name', name: s.nameInServer };
}

/** A welcome for a new patron, in the server's language: named as {@link welcomeWho} decided (a mention pings no one), or nobody. */
export function composeWelcome(
  input: {
    who: WelcomeWho;
    tierTitles: readonly string[];
    /** Where they support, when it is not Patreon (a source's own label, "Ko-fi"): named in the welcome. */
    sourceLabel?: string;
  },
  t: T = ENGLISH_T,
): ComposedMessage {
  const tiers = input.tierTitles.length > 0 ? ` (${plainText(input.tierTitles.join(', '), 200)})` : '';
  const { who } = input;
  const newest = input.sourceLabel ? t('post.newestSupporter', { source: input.sourceLabel }) : t('post.newestPatron');
  if (!who) return { content: t('post.welcomeNobody', { newest, tiers }) };
  const named = who.kind === 'mention' ? `<@${who.userId}>` : `**${plainText(who.name, 64)}**`;
  return { content: t('post.welcome', { who: named, newest, tiers }) };
}

export interface PostFacts {
  title: string | null;
  url: string | null;
  isPublic: boolean | null;
  /** Titles of the tiers the post is for, as far as Tierlink knows them. */
  tierTitles: readonly string[];
  campaignName: string | null;
}

/** Who can see a post, in words: everyone, the named tiers, or every patron. */
export function audienceOf(post: Pick<PostFacts, 'isPublic' | 'tierTitles'>, t: T = ENGLISH_T): string {
  if (post.isPublic === true) return t('post.everyone');
  if (post.tierTitles.length > 0) return post.tierTitles.join(', ');
  return t('post.patronsOnly');
}

/** A new post, in the server's language: its title linking to it, and which tiers can see it. */
export function composePostAnnouncement(post: PostFacts, t: T = ENGLISH_T): ComposedMessage {
  const title = clip((post.title ?? '').replace(/[\r\n]+/g, ' ').trim() || t('post.untitled'), 256);
  const description = post.campaignName ? t('post.publishedOn', { campaign: plainText(post.campaignName, 100) }) : t('post.published');
  const embed: Record<string, unknown> = {
    title,
    description,
    fields: [{ name: t('post.whoCanSee'), value: clip(audienceOf(post, t), 1024) }],
  };
  if (post.url) embed.url = post.url;
  return { content: t('post.new'), embeds: [embed] };
}
