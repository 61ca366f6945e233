import { gatewayCheck } from '../../../src/app/admin/gateway-check';
import type { GatewayStanding } from '../../../src/edges/outbound/store/instance-registry';

// A guild id whose shard of 2 is 1: (id >> 22) % 2 === 1.
const GUILD_ON_1 = String((5n << 22n) | 123n);

const standing = (shards: GatewayStanding['shards']): GatewayStanding => ({ shardCount: shards.length, shards });
const holder = { id: 'b4f1c2d3-aaaa-bbbb-cccc-000000000000', host: 'tierlink-2', pid: 4242 };

test('every shard held and connected: one line, all good', () => {
  expect(gatewayCheck(standing([{ shardId: 0, holder, connected: true }]), GUILD_ON_1)).toEqual([
    { name: 'Discord gateway', ok: true, detail: 'connected', fix: null, said: { detail: { key: 'doctorSays.gatewayOk' }, fix: null } },
  ]);
  expect(
    gatewayCheck(
      standing([
        { shardId: 0, holder, connected: true },
        { shardId: 1, holder, connected: true },
      ]),
      GUILD_ON_1,
    )[0]!.detail,
  ).toBe('all 2 shards connected');
});

test('a shard held without a session and a shard nobody holds are named, the server’s own first, with the fix', () => {
  const [check] = gatewayCheck(
    standing([
      { shardId: 0, holder: null, connected: false },
      { shardId: 1, holder, connected: false },
    ]),
    GUILD_ON_1,
  );
  expect(check).toMatchObject({ name: 'Discord gateway', ok: false });
  expect(check!.detail).toBe(
    'shard 1 (this server’s) is held by the instance on tierlink-2 (pid 4242) without a gateway session; no instance holds shard 0: commands and rejoining members of their servers go unanswered',
  );
  expect(check!.fix).toMatch(/within 30 s/);
});

test('before the gateway was ever opened there is nothing to say', () => {
  expect(gatewayCheck(null, GUILD_ON_1)).toEqual([]);
});
