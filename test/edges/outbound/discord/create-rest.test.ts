import v8 from 'node:v8';
import vm from 'node:vm';
import { createManualClock } from '@tierlink/sandbox';
import type { RestRateLimitEvent } from '../../../../src/edges/outbound/discord/create-rest';
import { createRest } from '../../../../src/edges/outbound/discord/create-rest';
import { createGuildDirectory } from '../../../../src/edges/outbound/discord/guild-directory';
import { createRoleWriter } from '../../../../src/edges/outbound/discord/role-writer';
import { createDiscordSandbox } from '@tierlink/sandbox/discord';
import type { DiscordSandbox } from '@tierlink/sandbox/discord';

describe('REST client rate limits against the Discord sandbox', () => {
  let sandbox: DiscordSandbox;

  beforeAll(async () => {
    sandbox = await createDiscordSandbox();
  });

  afterAll(async () => {
    await sandbox.close();
  });

  function build() {
    const { guildId } = sandbox.createGuild();
    const gold = sandbox.createRole(guildId, { name: 'Gold' }).id;
    const waits: RestRateLimitEvent[] = [];
    const handle = createRest({ apiBaseUrl: sandbox.apiBaseUrl, token: sandbox.botToken, onRateLimited: (e) => waits.push(e) });
    const writer = createRoleWriter({
      rest: handle.rest,
      directory: createGuildDirectory({ rest: handle.rest }),
      clock: createManualClock(),
    });
    return { guildId, gold, handle, writer, waits };
  }

  it('waits out a 429 with Retry-After and then succeeds', async () => {
    const { guildId, gold, handle, writer, waits } = build();
    const { userId } = sandbox.addMember(guildId);
    sandbox.resetRequests();
    sandbox.injectFault({ method: 'PUT', route: 'member-role', status: 429, retryAfterSeconds: 1 });
    await expect(writer.addRole(guildId, userId, gold, 'sync')).resolves.toEqual({ ok: true, value: undefined });
    const puts = sandbox.requests({ route: 'PUT /guilds/:g/members/:u/roles/:r' });
    expect(puts.map((r) => r.status)).toEqual([429, 204]);
    expect(handle.stats().tooManyRequests).toBe(1);
    expect(waits.length).toBeGreaterThanOrEqual(1);
    expect(sandbox.memberRoles(guildId, userId)).toEqual([gold]);
  });

  it('paces itself from the rate-limit headers, so a small bucket causes waits but no 429', async () => {
    const { guildId, gold, handle, writer, waits } = build();
    const users = Array.from({ length: 5 }, () => sandbox.addMember(guildId).userId);
    sandbox.setRateLimit({ route: 'member-role', limit: 2, windowMs: 250, raised: 'a window of 250 ms keeps the test short' });
    try {
      sandbox.resetRequests();
      const results = await Promise.all(users.map((u) => writer.addRole(guildId, u, gold, 'sync')));
      expect(results.every((r) => r.ok)).toBe(true);
      expect(sandbox.requests().filter((r) => r.status === 429)).toEqual([]);
      expect(waits.length).toBeGreaterThanOrEqual(2);
      expect(waits[0]).toMatchObject({ route: '/guilds/:id/members/:id/roles/:id', method: 'PUT', global: false });
      expect(handle.stats().rateLimitWaitMs).toBeGreaterThan(0);
      expect(handle.stats().byRoute['PUT /guilds/:id/members/:id/roles/:id']).toBe(5);
    } finally {
      sandbox.setRateLimit({ route: 'member-role', limit: 10, windowMs: 10_000 });
    }
  });

  it('ends its sweep timers on close, so a stopped client can be freed', async () => {
    // The sweep timers do not keep the process running (unref), so only the garbage collector tells.
    v8.setFlagsFromString('--expose-gc');
    const gc = vm.runInNewContext('gc') as () => void;
    const collected = async (make: () => WeakRef<object>) => {
      const ref = make();
      for (let i = 0; i < 3; i += 1) {
        await new Promise((resolve) => setImmediate(resolve));
        gc();
      }
      return ref.deref() === undefined;
    };
    const client = (close: boolean) => () => {
      const handle = createRest({ apiBaseUrl: sandbox.apiBaseUrl, token: sandbox.botToken });
      if (close) handle.close();
      return new WeakRef(handle.rest);
    };
    expect(await collected(client(false))).toBe(false);
    expect(await collected(client(true))).toBe(true);
  });
});
