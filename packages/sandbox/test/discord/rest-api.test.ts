import { WebSocket } from 'ws';
import { createManualClock, discordInteractionsEnvironment } from '@tierlink/sandbox';
import { Permission, createDiscordSandbox } from '@tierlink/sandbox/discord';
import type { DiscordSandbox } from '@tierlink/sandbox/discord';
import { type Answer, call } from './http';

describe('Discord sandbox REST', () => {
  let sandbox: DiscordSandbox;
  let guildId: string;
  let botRoleId: string;
  let goldId: string;
  let aliceId: string;

  beforeEach(async () => {
    sandbox = await createDiscordSandbox();
    ({ guildId, botRoleId } = sandbox.createGuild({ name: 'Creators' }));
    goldId = sandbox.createRole(guildId, { name: 'Gold' }).id;
    aliceId = sandbox.addMember(guildId, { username: 'alice' }).userId;
  });

  afterEach(async () => {
    await sandbox.close();
  });

  it('mints 17–19 digit snowflakes', () => {
    for (const id of [guildId, botRoleId, goldId, aliceId, sandbox.applicationId]) expect(id).toMatch(/^\d{17,19}$/);
  });

  it('answers 401 with code 0 without the bot token, and counts it as invalid', async () => {
    const missing = await call(sandbox, 'GET', `/guilds/${guildId}/roles`, { auth: null });
    const wrong = await call(sandbox, 'GET', `/guilds/${guildId}/roles`, { auth: 'Bot nope' });
    expect([missing.status, wrong.status]).toEqual([401, 401]);
    expect(missing.body).toEqual({ message: '401: Unauthorized', code: 0 });
    expect(sandbox.invalidRequestCount()).toBe(2);
  });

  it('serves roles ordered by position, with the bot role managed and tagged', async () => {
    const { status, body } = await call(sandbox, 'GET', `/guilds/${guildId}/roles`);
    expect(status).toBe(200);
    const roles = body as Array<Record<string, unknown>>;
    expect(roles.map((r) => r.name)).toEqual(['@everyone', 'Gold', 'Tierlink']);
    expect(roles[2]).toMatchObject({
      id: botRoleId,
      managed: true,
      permissions: String(Permission.ManageRoles),
      tags: { bot_id: sandbox.botUserId },
    });
    expect(roles[0]).toMatchObject({ id: guildId, position: 0, permissions: '0' });
  });

  it('adds and removes one role with 204, no content-type, the audit reason logged', async () => {
    const put = await call(sandbox, 'PUT', `/guilds/${guildId}/members/${aliceId}/roles/${goldId}`, { reason: 'Patreon sync: tier Gold' });
    expect(put.status).toBe(204);
    expect(put.headers.get('content-type')).toBeNull();
    expect(put.headers.get('x-ratelimit-bucket')).toMatch(/^[0-9a-f]{32}$/);
    expect(sandbox.memberRoles(guildId, aliceId)).toEqual([goldId]);
    const del = await call(sandbox, 'DELETE', `/guilds/${guildId}/members/${aliceId}/roles/${goldId}`);
    expect(del.status).toBe(204);
    expect(sandbox.roleEvents().map(({ op, via, reason, roleId }) => ({ op, via, reason, roleId }))).toEqual([
      { op: 'add', via: 'rest', reason: 'Patreon sync: tier Gold', roleId: goldId },
      { op: 'remove', via: 'rest', reason: null, roleId: goldId },
    ]);
    expect(sandbox.requests().map((r) => `${r.route} ${r.status}`)).toEqual([
      'PUT /guilds/:g/members/:u/roles/:r 204',
      'DELETE /guilds/:g/members/:u/roles/:r 204',
    ]);
  });

  it('answers the real error codes for unknown guild, member and role', async () => {
    const unknownGuild = await call(sandbox, 'PUT', `/guilds/100000000000000001/members/${aliceId}/roles/${goldId}`);
    const unknownMember = await call(sandbox, 'PUT', `/guilds/${guildId}/members/100000000000000001/roles/${goldId}`);
    const unknownRole = await call(sandbox, 'PUT', `/guilds/${guildId}/members/${aliceId}/roles/100000000000000001`);
    const getMember = await call(sandbox, 'GET', `/guilds/${guildId}/members/100000000000000001`);
    expect([unknownGuild, unknownMember, unknownRole, getMember].map((a) => [a.status, (a.body as { code: number }).code])).toEqual([
      [404, 10004],
      [404, 10007],
      [404, 10011],
      [404, 10007],
    ]);
  });

  it('enforces the role hierarchy, managed roles, @everyone and Manage Roles with 403 / 50013', async () => {
    const above = sandbox.createRole(guildId, { name: 'Staff', position: 10 }).id;
    const managed = sandbox.createRole(guildId, { name: 'Booster', managed: true }).id;
    const cases = [above, managed, guildId, botRoleId];
    for (const roleId of cases) {
      const answer = await call(sandbox, 'PUT', `/guilds/${guildId}/members/${aliceId}/roles/${roleId}`);
      expect([answer.status, answer.body]).toEqual([403, { message: 'Missing Permissions', code: 50013 }]);
    }
    sandbox.updateRole(guildId, botRoleId, { permissions: 0n });
    const noPerm = await call(sandbox, 'PUT', `/guilds/${guildId}/members/${aliceId}/roles/${goldId}`);
    expect(noPerm.status).toBe(403);
    sandbox.updateRole(guildId, botRoleId, { permissions: Permission.Administrator });
    const admin = await call(sandbox, 'PUT', `/guilds/${guildId}/members/${aliceId}/roles/${goldId}`);
    expect(admin.status).toBe(204);
    expect(sandbox.invalidRequestCount()).toBe(5);
    expect(sandbox.memberRoles(guildId, aliceId)).toEqual([goldId]);
  });

  it('moves roles like the role list does: the bot can grant a role only after it is moved above it', async () => {
    const staff = sandbox.createRole(guildId, { name: 'Staff', position: 5 });
    expect((await call(sandbox, 'PUT', `/guilds/${guildId}/members/${aliceId}/roles/${staff.id}`)).status).toBe(403);
    sandbox.updateRole(guildId, botRoleId, { position: staff.position });
    const positions = Object.fromEntries(sandbox.guild(guildId).roles.map((r) => [r.name, r.position]));
    expect(positions.Tierlink).toBeGreaterThan(positions.Staff ?? Infinity);
    expect((await call(sandbox, 'PUT', `/guilds/${guildId}/members/${aliceId}/roles/${staff.id}`)).status).toBe(204);
  });

  it('implements PATCH of the whole role list but logs it as a patch', async () => {
    const silver = sandbox.createRole(guildId, { name: 'Silver' }).id;
    sandbox.setMemberRolesByHand(guildId, aliceId, [silver]);
    const answer = await call(sandbox, 'PATCH', `/guilds/${guildId}/members/${aliceId}`, { body: { roles: [goldId] } });
    expect(answer.status).toBe(200);
    expect((answer.body as { roles: string[] }).roles).toEqual([goldId]);
    expect(sandbox.roleEvents().map((e) => `${e.via}:${e.op}:${e.roleId === goldId ? 'gold' : 'silver'}`)).toEqual([
      'hand:add:silver',
      'patch:remove:silver',
      'patch:add:gold',
    ]);
    expect(sandbox.requests({ route: 'PATCH /guilds/:g/members/:u' })).toHaveLength(1);
  });

  it('refuses an audit reason longer than 512 characters', async () => {
    const answer = await call(sandbox, 'PUT', `/guilds/${guildId}/members/${aliceId}/roles/${goldId}`, { reason: 'x'.repeat(513) });
    expect(answer.status).toBe(400);
    expect((answer.body as { code: number }).code).toBe(50035);
  });

  it('pages members by ascending id with limit and after, validating both', async () => {
    const ids = [aliceId];
    for (let i = 0; i < 4; i += 1) ids.push(sandbox.addMember(guildId).userId);
    const all = [...ids, sandbox.botUserId, sandbox.guild(guildId).ownerId].sort((a, b) => (BigInt(a) < BigInt(b) ? -1 : 1));
    const first = await call(sandbox, 'GET', `/guilds/${guildId}/members?limit=3`);
    const firstIds = (first.body as Array<{ user: { id: string } }>).map((m) => m.user.id);
    expect(firstIds).toEqual(all.slice(0, 3));
    const second = await call(sandbox, 'GET', `/guilds/${guildId}/members?limit=3&after=${firstIds[2] ?? ''}`);
    expect((second.body as Array<{ user: { id: string } }>).map((m) => m.user.id)).toEqual(all.slice(3, 6));
    const one = await call(sandbox, 'GET', `/guilds/${guildId}/members`);
    expect(one.body).toHaveLength(1);
    for (const bad of ['limit=0', 'limit=1001', 'limit=abc', 'after=xyz']) {
      const answer = await call(sandbox, 'GET', `/guilds/${guildId}/members?${bad}`);
      expect([bad, answer.status, (answer.body as { code: number }).code]).toEqual([bad, 400, 50035]);
    }
  });

  it('searches members whose username or nickname starts with the query, case-insensitively, limit 1 by default', async () => {
    const alina = sandbox.addMember(guildId, { username: 'alina', globalName: 'Zed' }).userId;
    const nicked = sandbox.addMember(guildId, { username: 'zz_top', nick: 'Alfred' }).userId;
    sandbox.addMember(guildId, { username: 'bob', globalName: 'Alvin' });
    const search = async (query: string) => {
      const answer = await call(sandbox, 'GET', `/guilds/${guildId}/members/search?${query}`);
      return {
        status: answer.status,
        ids: Array.isArray(answer.body) ? (answer.body as Array<{ user: { id: string } }>).map((m) => m.user.id) : answer.body,
      };
    };
    const all = await search('query=AL&limit=10');
    expect(all.status).toBe(200);
    // The display name (global_name) is not searched: "Alvin" is bob's.
    expect([...(all.ids as string[])].sort()).toEqual([aliceId, alina, nicked].sort());
    expect((await search('query=al')).ids).toHaveLength(1);
    expect((await search('query=nobody&limit=5')).ids).toEqual([]);
    const missing = await call(sandbox, 'GET', `/guilds/${guildId}/members/search?limit=5`);
    expect([missing.status, missing.body]).toEqual([
      400,
      {
        message: 'Invalid Form Body',
        code: 50035,
        errors: { query: { _errors: [{ code: 'BASE_TYPE_REQUIRED', message: 'This field is required' }] } },
      },
    ]);
    expect((await search('query=a&limit=1001')).status).toBe(400);
  });

  it('answers 403 / 50001 on the member list when the members intent is disabled', async () => {
    sandbox.setMembersIntentEnabled(false);
    const answer = await call(sandbox, 'GET', `/guilds/${guildId}/members?limit=1000`);
    expect([answer.status, answer.body]).toEqual([403, { message: 'Missing Access', code: 50001 }]);
    expect((await call(sandbox, 'GET', `/guilds/${guildId}/members/${aliceId}`)).status).toBe(200);
  });

  it('sends real rate-limit headers and a 429 with Retry-After when a bucket is empty', async () => {
    sandbox.setRateLimit({ route: 'roles', limit: 2, windowMs: 60_000 });
    const first = await call(sandbox, 'GET', `/guilds/${guildId}/roles`);
    expect(first.headers.get('x-ratelimit-limit')).toBe('2');
    expect(first.headers.get('x-ratelimit-remaining')).toBe('1');
    expect(Number(first.headers.get('x-ratelimit-reset-after'))).toBeGreaterThan(59);
    await call(sandbox, 'GET', `/guilds/${guildId}/roles`);
    const limited = await call(sandbox, 'GET', `/guilds/${guildId}/roles`);
    expect(limited.status).toBe(429);
    expect(limited.headers.get('retry-after')).toBe('60');
    expect(limited.headers.get('x-ratelimit-scope')).toBe('user');
    expect(limited.body).toMatchObject({ message: 'You are being rate limited.', global: false });
    // Buckets are per major parameter: another guild's roles are not limited.
    const other = sandbox.createGuild().guildId;
    expect((await call(sandbox, 'GET', `/guilds/${other}/roles`)).status).toBe(200);
    expect(sandbox.invalidRequestCount()).toBe(1);
  });

  it('applies a global limit with X-RateLimit-Global, but not to interaction callbacks', async () => {
    sandbox.setRateLimit({ route: 'global', limit: 2, windowMs: 60_000 });
    await call(sandbox, 'GET', '/users/@me');
    await call(sandbox, 'GET', '/users/@me');
    const limited = await call(sandbox, 'GET', `/guilds/${guildId}`);
    expect(limited.status).toBe(429);
    expect(limited.headers.get('x-ratelimit-global')).toBe('true');
    expect(limited.headers.get('x-ratelimit-scope')).toBe('global');
    expect((limited.body as { global: boolean }).global).toBe(true);
    const callback = await call(sandbox, 'POST', '/interactions/100000000000000001/token/callback', {
      auth: null,
      body: { type: 4, data: { content: 'x' } },
    });
    expect([callback.status, (callback.body as { code: number }).code]).toEqual([404, 10062]);
  });

  it('injects faults for matching requests only, as many times as asked', async () => {
    sandbox.injectFault({ method: 'GET', route: '/guilds/:g/roles', status: 500, times: 2 });
    expect((await call(sandbox, 'GET', `/guilds/${guildId}`)).status).toBe(200);
    expect((await call(sandbox, 'GET', `/guilds/${guildId}/roles`)).status).toBe(500);
    expect((await call(sandbox, 'GET', `/guilds/${guildId}/roles`)).status).toBe(500);
    expect((await call(sandbox, 'GET', `/guilds/${guildId}/roles`)).status).toBe(200);
  });

  it('holds a request after applying it: the role is given, the answer comes only when released', async () => {
    const hold = sandbox.holdRequests({ method: 'PUT', route: '/guilds/:g/members/:u/roles/:r' });
    const put = call(sandbox, 'PUT', `/guilds/${guildId}/members/${aliceId}/roles/${goldId}`);
    await hold.waitForHeld();
    expect(sandbox.memberRoles(guildId, aliceId)).toEqual([goldId]);
    expect(hold.waiting()).toBe(1);
    hold.release();
    expect((await put).status).toBe(204);
    expect(hold.waiting()).toBe(0);
    // Released: the next request goes through at once.
    expect((await call(sandbox, 'DELETE', `/guilds/${guildId}/members/${aliceId}/roles/${goldId}`)).status).toBe(204);
  });

  it('holds a request before applying it when asked: nothing changes until released', async () => {
    const hold = sandbox.holdRequests({ method: 'PUT', route: '/guilds/:g/members/:u/roles/:r', point: 'before' });
    const put = call(sandbox, 'PUT', `/guilds/${guildId}/members/${aliceId}/roles/${goldId}`);
    await hold.waitForHeld();
    expect(sandbox.memberRoles(guildId, aliceId)).toEqual([]);
    hold.release();
    expect((await put).status).toBe(204);
    expect(sandbox.memberRoles(guildId, aliceId)).toEqual([goldId]);
  });

  it('says whether the bot is public in GET /applications/@me, as the Developer Portal sets it (public for a new application)', async () => {
    expect((await call(sandbox, 'GET', '/applications/@me')).body).toMatchObject({ bot_public: true });
    sandbox.setBotPublic(false);
    expect((await call(sandbox, 'GET', '/applications/@me')).body).toMatchObject({ bot_public: false });
  });

  it('answers 404 / 405 with code 0 for unknown routes and methods', async () => {
    const unknown = await call(sandbox, 'GET', '/stage-instances/100000000000000001');
    const method = await call(sandbox, 'POST', `/guilds/${guildId}/roles`, { body: {} });
    expect([unknown.status, method.status]).toEqual([404, 405]);
    expect(sandbox.requests().map((r) => r.route)).toEqual(['GET /stage-instances/100000000000000001', 'POST /guilds/:g/roles']);
  });

  it('stores bulk-overwritten commands with stable ids and counts the PUTs', async () => {
    const app = sandbox.applicationId;
    const commands = [
      { name: 'link', description: 'Link your membership', type: 1 },
      {
        name: 'map',
        description: 'Map a tier',
        options: [{ name: 'tier', description: 'Tier', type: 3, autocomplete: true, required: true }],
      },
    ];
    const first = await call(sandbox, 'PUT', `/applications/${app}/guilds/${guildId}/commands`, { body: commands });
    expect(first.status).toBe(200);
    const again = await call(sandbox, 'PUT', `/applications/${app}/guilds/${guildId}/commands`, { body: commands });
    const ids = (a: Answer): string[] => (a.body as Array<{ id: string }>).map((c) => c.id);
    expect(ids(again)).toEqual(ids(first));
    expect(sandbox.commandPutCount(guildId)).toBe(2);
    expect(sandbox.commandPutCount()).toBe(0);
    const listed = await call(sandbox, 'GET', `/applications/${app}/guilds/${guildId}/commands`);
    expect((listed.body as Array<{ name: string; guild_id: string }>).map((c) => [c.name, c.guild_id])).toEqual([
      ['link', guildId],
      ['map', guildId],
    ]);
    const invalid = await call(sandbox, 'PUT', `/applications/${app}/commands`, { body: [{ name: 'Bad Name', description: 'x' }] });
    expect([invalid.status, (invalid.body as { code: number }).code]).toEqual([400, 50035]);
    const choicesAndAutocomplete = await call(sandbox, 'PUT', `/applications/${app}/commands`, {
      body: [{ name: 'x', description: 'x', options: [{ name: 'y', description: 'y', type: 3, autocomplete: true, choices: [] }] }],
    });
    expect(choicesAndAutocomplete.status).toBe(400);
  });

  it('exposes its state through the HTTP control API', async () => {
    const base = `${sandbox.baseUrl}/__sandbox`;
    const created = (await (
      await fetch(`${base}/guilds/${guildId}/roles`, { method: 'POST', body: JSON.stringify({ name: 'Silver' }) })
    ).json()) as { id: string };
    const put = await fetch(`${base}/guilds/${guildId}/members/${aliceId}/roles`, {
      method: 'PUT',
      body: JSON.stringify({ roleIds: [created.id] }),
    });
    expect(put.status).toBe(204);
    const roles = (await (await fetch(`${base}/guilds/${guildId}/members/${aliceId}/roles`)).json()) as { roleIds: string[] };
    expect(roles.roleIds).toEqual([created.id]);
    const guild = (await (await fetch(`${base}/guilds/${guildId}`)).json()) as { roles: Array<{ name: string }> };
    expect(guild.roles.map((r) => r.name)).toContain('Silver');
    const events = (await (await fetch(`${base}/role-events`)).json()) as Array<{ via: string }>;
    expect(events.map((e) => e.via)).toEqual(['hand']);
    const bad = await fetch(`${base}/guilds/1/members/2/roles`);
    expect(bad.status).toBe(400);
  });
});

describe('Discord sandbox interaction tokens', () => {
  it('refuses a late first response with 10062 and an expired token with 401 / 50027', async () => {
    const clock = createManualClock();
    const sandbox = await createDiscordSandbox({ clock });
    try {
      const { guildId } = sandbox.createGuild();
      const { userId } = sandbox.addMember(guildId);
      // injectCommand needs an identified gateway session; a bare WebSocket client is enough here.
      const ws = new WebSocket(`${sandbox.gatewayUrl}/?v=10&encoding=json`);
      await new Promise<void>((resolve) => ws.once('message', () => resolve()));
      ws.send(JSON.stringify({ op: 2, d: { token: sandbox.botToken, intents: 1, properties: {} } }));
      await sandbox.waitForConnection();

      const late = sandbox.injectCommand({ guildId, userId, name: 'status' });
      clock.advance(3_001);
      const lateAnswer = await call(sandbox, 'POST', `/interactions/${late.interactionId}/${late.token}/callback`, {
        auth: null,
        body: { type: 4, data: { content: 'hi' } },
      });
      expect([lateAnswer.status, (lateAnswer.body as { code: number }).code]).toEqual([404, 10062]);

      const ok = sandbox.injectCommand({ guildId, userId, name: 'status' });
      const deferred = await call(sandbox, 'POST', `/interactions/${ok.interactionId}/${ok.token}/callback?with_response=true`, {
        auth: null,
        body: { type: 5, data: { flags: 64 } },
      });
      expect(deferred.status).toBe(200);
      expect(deferred.body).toMatchObject({
        interaction: { id: ok.interactionId, response_message_loading: true, response_message_ephemeral: true },
        resource: { type: 5 },
      });
      const twice = await call(sandbox, 'POST', `/interactions/${ok.interactionId}/${ok.token}/callback`, {
        auth: null,
        body: { type: 4, data: { content: 'x' } },
      });
      expect((twice.body as { code: number }).code).toBe(40060);
      const edit = await call(sandbox, 'PATCH', `/webhooks/${sandbox.applicationId}/${ok.token}/messages/%40original`, {
        auth: null,
        body: { content: 'done' },
      });
      expect(edit.status).toBe(200);
      expect(edit.body).toMatchObject({ content: 'done', flags: 64 });
      const final = await sandbox.waitForInteractionResponse(ok.interactionId, { final: true, timeoutMs: 100 });
      expect(final).toMatchObject({ kind: 'edit', messageId: '@original', data: { content: 'done' } });

      clock.advance(15 * 60_000 + 1);
      const expired = await call(sandbox, 'PATCH', `/webhooks/${sandbox.applicationId}/${ok.token}/messages/%40original`, {
        auth: null,
        body: { content: 'late' },
      });
      expect([expired.status, (expired.body as { code: number }).code]).toEqual([401, 50027]);
      const unknown = await call(sandbox, 'GET', `/webhooks/${sandbox.applicationId}/not-a-token/messages/%40original`, { auth: null });
      expect([unknown.status, (unknown.body as { code: number }).code]).toEqual([404, 10015]);
      ws.close(1000);
    } finally {
      await sandbox.close();
    }
  });
});

describe('Discord sandbox guild object and environment', () => {
  it('serves GET /guilds/{id} with owner_id, roles, max_members and, on request, the counts', async () => {
    const sandbox = await createDiscordSandbox();
    try {
      const owner = sandbox.createUser({ username: 'owner' }).id;
      const { guildId } = sandbox.createGuild({ name: 'Creators', ownerId: owner, maxMembers: 250 });
      const gold = sandbox.createRole(guildId, { name: 'Gold' });
      const plain = await call(sandbox, 'GET', `/guilds/${guildId}`);
      expect(plain.body).toMatchObject({ id: guildId, name: 'Creators', owner_id: owner, max_members: 250 });
      expect((plain.body as { roles: Array<{ id: string }> }).roles.map((r) => r.id)).toContain(gold.id);
      expect((plain.body as Record<string, unknown>).approximate_member_count).toBeUndefined();
      const counted = await call(sandbox, 'GET', `/guilds/${guildId}?with_counts=true`);
      expect(counted.body).toMatchObject({ approximate_member_count: 2 });
      expect(discordInteractionsEnvironment(sandbox)).toEqual({ DISCORD_PUBLIC_KEY: sandbox.publicKey });
      expect(sandbox.publicKey).toMatch(/^[0-9a-f]{64}$/);
    } finally {
      await sandbox.close();
    }
  });
});
