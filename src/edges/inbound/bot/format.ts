import { type T, translator } from '../../../core/i18n';

/** Small text helpers for Discord replies (Markdown, role mentions that never ping). */

export const roleMention = (roleId: string) => `<@&${roleId}>`;

/** Discord caps message content at 2,000 characters: cut at a line and say how many were left out. */
export function fitMessage(lines: readonly string[], max = 1900, t: T = translator('en')): string {
  const out: string[] = [];
  let length = 0;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    if (length + line.length + 1 > max) {
      out.push(t('reply.moreLines', { count: lines.length - i }));
      break;
    }
    out.push(line);
    length += line.length + 1;
  }
  return out.join('\n');
}

export function day(date: Date): string {
  return date.toISOString().slice(0, 10);
}

export function money(cents: number): string {
  return `$${(cents / 100).toFixed(cents % 100 === 0 ? 0 : 2)}`;
}

/** The refusal of a staff command to a member without Manage Roles in the server. */
export const STAFF_ONLY = (command: string, t: T = translator('en')) => t('reply.staffOnly', { command });

/** Replies mention roles by id; this keeps Discord from pinging anyone. */
export const NO_PINGS = { parse: [] as never[] };

/** What a guild-wide apply after `/map`, `/settings` or `/allow-role` did, in one line. */
export function describeGuildApply(
  outcome: { kind: 'applied'; members: number; changes: number } | { kind: 'queued' },
  t: T = translator('en'),
): string {
  if (outcome.kind === 'queued') return t('apply.queued');
  return t('apply.done', {
    changes: t('apply.changes', { count: outcome.changes }),
    members: t('apply.members', { count: outcome.members }),
  });
}
