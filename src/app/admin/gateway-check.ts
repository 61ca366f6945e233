import { shardOfGuild } from '../../core/shard-assignment';
import type { GatewayStanding } from '../../edges/outbound/store/instance-registry';
import type { DoctorCheck } from './doctor';
import { type Said, saidCheck, says, withSaid } from './doctor-says';

type Holder = NonNullable<GatewayStanding['shards'][number]['holder']>;

const who = (holder: Holder) => (holder.host ? `the instance on ${holder.host} (pid ${holder.pid})` : `instance ${holder.id.slice(0, 8)}`);
const whoSaid = (holder: Holder): Said =>
  holder.host
    ? says('doctorSays.instanceOn', { host: holder.host, pid: String(holder.pid) })
    : says('doctorSays.instanceId', { id: holder.id.slice(0, 8) });

/**
 * `/doctor`'s line about the gateway (docs/outages-and-fencing.md): every shard must be held by a live
 * instance whose session of it is connected, or its servers' commands and rejoining members go
 * unanswered. The server's own shard is named first; the others matter to every server of the
 * installation, so they are named too. Nothing before the gateway was ever opened.
 */
export function gatewayCheck(standing: GatewayStanding | null, guildId: string): DoctorCheck[] {
  if (!standing || standing.shards.length === 0) return [];
  const own = shardOfGuild(guildId, standing.shardCount);
  const problems: string[] = [];
  const said: Said[] = [];
  const ordered = [...standing.shards].sort((a, b) => (a.shardId === own ? -1 : b.shardId === own ? 1 : a.shardId - b.shardId));
  for (const shard of ordered) {
    const name = `shard ${shard.shardId}${shard.shardId === own ? ' (this server’s)' : ''}`;
    const shardSaid = says(shard.shardId === own ? 'doctorSays.shardOwn' : 'doctorSays.shard', { id: String(shard.shardId) });
    if (!shard.holder) {
      problems.push(`no instance holds ${name}`);
      said.push(says('doctorSays.shardUnheld', { shard: shardSaid }));
    } else if (!shard.connected) {
      problems.push(`${name} is held by ${who(shard.holder)} without a gateway session`);
      said.push(says('doctorSays.shardNoSession', { shard: shardSaid, holder: whoSaid(shard.holder) }));
    }
  }
  if (problems.length === 0) {
    return [
      saidCheck(
        'Discord gateway',
        true,
        standing.shardCount === 1 ? says('doctorSays.gatewayOk') : says('doctorSays.gatewayShardsOk', { count: standing.shardCount }),
        null,
      ),
    ];
  }
  return [
    withSaid(
      {
        name: 'Discord gateway',
        ok: false,
        detail: `${problems.join('; ')}: commands and rejoining members of ${problems.length === 1 ? 'its' : 'their'} servers go unanswered`,
        fix: 'Tierlink opens a shard again, or hands it to another instance, within 30 s. If this lasts, read that instance’s log (“gateway shard”) for why: the bot token, the intents, or its network to Discord; restarting it hands its shards over.',
      },
      says('doctorSays.gatewayDown', { problems: { all: said }, count: said.length }),
      says('doctorSays.gatewayDownFix'),
    ),
  ];
}
