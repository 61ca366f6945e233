import { sql } from 'drizzle-orm';
import type { Db } from '../../src/edges/outbound/store/database';

export interface MemberSeed {
  guildId: string;
  campaignId: string;
  /** Tiers given in turn. */
  tierIds: readonly string[];
  count: number;
  now: Date;
  graceDays: number;
}

/**
 * `count` memberships of a campaign written straight into the store, in one statement each, with
 * a known mix (the expected counts are {@link expectedCounts}): person i is
 * - by i % 10: 0–5 an active patron, 6 declined 1 day ago (in grace), 7 declined 60 days ago
 *   (grace over), 8 a former patron, 9 a follower;
 * - by i % 3: 0 not linked, 1 linked and in the server, 2 linked and not in the server;
 * - comped when i % 999 = 1 (so linked and in the server).
 */
export async function seedMembers(db: Db, seed: MemberSeed): Promise<void> {
  const now = seed.now.toISOString();
  const tiers = JSON.stringify(seed.tierIds);
  const user = (i: string) => sql.raw(`'seed-user-' || ${i}`);
  const discord = (i: string) => sql.raw(`'4' || lpad(${i}::text, 17, '0')`);
  await db.execute(sql`
    insert into member_snapshots (source, campaign_id, member_id, external_user_id, patron_status, is_follower,
      entitled_tier_ids, last_active_tier_ids, first_declined_at, pledge_relationship_start, entitled_amount_cents, full_name, read_by, fetched_at)
    select 'patreon', ${seed.campaignId}, 'seed-member-' || i, ${user('i')},
      case when i % 10 < 6 then 'active_patron' when i % 10 in (6, 7) then 'declined_patron' when i % 10 = 8 then 'former_patron' else null end,
      i % 10 = 9,
      case when i % 10 < 6 then jsonb_build_array((${tiers}::jsonb) ->> (i % jsonb_array_length(${tiers}::jsonb))) else '[]'::jsonb end,
      case when i % 10 < 8 then jsonb_build_array((${tiers}::jsonb) ->> (i % jsonb_array_length(${tiers}::jsonb))) else '[]'::jsonb end,
      case when i % 10 = 6 then ${now}::timestamptz - interval '1 day' when i % 10 = 7 then ${now}::timestamptz - interval '60 days' else null end,
      ${now}::timestamptz - (i % 900) * interval '1 day',
      case when i % 10 < 8 then 300 + (i % 5) * 100 else null end,
      'Seeded Patron ' || i, 'sync', ${now}::timestamptz
    from generate_series(0, ${seed.count - 1}) as i`);
  await db.execute(sql`
    insert into links (discord_user_id, source, external_id, method, linked_at, updated_at)
    select ${discord('i')}, 'patreon', ${user('i')}, 'oauth', ${now}::timestamptz, ${now}::timestamptz
    from generate_series(0, ${seed.count - 1}) as i where i % 3 <> 0`);
  await db.execute(sql`
    insert into guild_presence (guild_id, discord_user_id, display_name, seen_at)
    select ${seed.guildId}, ${discord('i')}, 'seeded_' || i, ${now}::timestamptz
    from generate_series(0, ${seed.count - 1}) as i where i % 3 = 1`);
  await db.execute(sql`
    insert into comps (guild_id, discord_user_id, campaign_id, tier_id, until, reason, granted_by, granted_at)
    select ${seed.guildId}, ${discord('i')}, ${seed.campaignId}, ${seed.tierIds[0]!}, ${now}::timestamptz + interval '30 days', 'seeded', 'seed', ${now}::timestamptz
    from generate_series(0, ${seed.count - 1}) as i where i % 999 = 1`);
}

/** The counts {@link seedMembers} makes, per filter of the Members page. */
export function expectedCounts(count: number): Record<string, number> {
  const c = { all: 0, patrons: 0, linked: 0, 'not-linked': 0, 'not-in-server': 0, grace: 0, former: 0, comped: 0 };
  for (let i = 0; i < count; i++) {
    const kind = i % 10;
    const link = i % 3;
    const entitled = kind <= 6;
    const comped = i % 999 === 1;
    c.all += 1;
    if (kind < 6) c.patrons += 1;
    if (link !== 0) c.linked += 1;
    if (link === 0 && entitled) c['not-linked'] += 1;
    if (link === 2 && (entitled || comped)) c['not-in-server'] += 1;
    if (kind === 6) c.grace += 1;
    if (kind === 7 || kind === 8) c.former += 1;
    if (comped) c.comped += 1;
  }
  return c;
}
