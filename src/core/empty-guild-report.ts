import type { GuildSyncReport } from './sync-report';

/** A guild's report before anything was read or planned: every count 0, no error, status `ok`. */
export function emptyGuildReport(
  init: Pick<GuildSyncReport, 'runId' | 'guildId' | 'campaignIds' | 'startedAt'> &
    Partial<Pick<GuildSyncReport, 'adoptions' | 'resumed' | 'errors'>>,
): GuildSyncReport {
  return {
    guildName: null,
    status: 'ok',
    finishedAt: init.startedAt,
    discord: { pages: 0, members: 0 },
    linkedMembers: 0,
    usersPlanned: 0,
    ourGrants: 0,
    planned: { adds: 0, removes: 0, forgets: 0, blocked: 0 },
    applied: { adds: 0, removes: 0, forgets: 0 },
    failed: 0,
    held: null,
    adoptions: null,
    resumed: null,
    errors: [],
    apiCalls: {},
    changeCount: 0,
    changes: [],
    ...init,
  };
}
