import { CloseCode, Intent, createDiscordSandbox } from '@tierlink/sandbox/discord';
import type { DiscordSandbox } from '@tierlink/sandbox/discord';
import { RawGateway } from './raw-gateway';

describe('Discord sandbox gateway', () => {
  let sandbox: DiscordSandbox;
  let guildId: string;
  const open: RawGateway[] = [];
  const connect = (query = '?v=10&encoding=json'): RawGateway => {
    const gw = new RawGateway(`${sandbox.gatewayUrl}/${query}`);
    open.push(gw);
    return gw;
  };

  beforeEach(async () => {
    sandbox = await createDiscordSandbox({ heartbeatIntervalMs: 45_000 });
    ({ guildId } = sandbox.createGuild({ name: 'Creators' }));
  });

  afterEach(async () => {
    for (const gw of open.splice(0)) gw.close();
    await sandbox.close();
  });

  it('says HELLO, acks heartbeats, and sends READY then GUILD_CREATE with channels and the bot member', async () => {
    const gw = connect();
    const hello = await gw.frame((f) => f.op === 10);
    expect(hello.d).toMatchObject({ heartbeat_interval: 45_000 });
    gw.send({ op: 1, d: null });
    await gw.frame((f) => f.op === 11);
    gw.send({ op: 2, d: { token: sandbox.botToken, intents: Intent.Guilds | Intent.GuildMembers, properties: {} } });
    const ready = await gw.frame((f) => f.t === 'READY');
    expect(ready).toMatchObject({
      op: 0,
      s: 1,
      d: { v: 10, user: { id: sandbox.botUserId, bot: true }, guilds: [{ id: guildId, unavailable: true }] },
    });
    const create = await gw.frame((f) => f.t === 'GUILD_CREATE');
    const d = create.d as { id: string; channels: unknown[]; members: Array<{ user: { id: string } }>; roles: unknown[] };
    expect(create.s).toBe(2);
    expect(d.id).toBe(guildId);
    expect(d.channels).toHaveLength(1);
    expect(d.members.map((m) => m.user.id)).toEqual([sandbox.botUserId]);
    expect(d.roles).toHaveLength(2);
  });

  it.each([
    ['a payload before IDENTIFY', { op: 3, d: {} }, CloseCode.NotAuthenticated],
    ['a wrong token', { op: 2, d: { token: 'nope', intents: 1, properties: {} } }, CloseCode.AuthenticationFailed],
    ['invalid intents', { op: 2, d: { token: 'TOKEN', intents: -1, properties: {} } }, CloseCode.InvalidIntents],
    ['the presences intent', { op: 2, d: { token: 'TOKEN', intents: Intent.GuildPresences, properties: {} } }, CloseCode.DisallowedIntents],
    ['an unknown opcode', { op: 99, d: null }, CloseCode.UnknownOpcode],
  ])('closes the connection on %s', async (_name, frame, code) => {
    const gw = connect();
    await gw.frame((f) => f.op === 10);
    const d = frame.d as Record<string, unknown> | null;
    if (d && d.token === 'TOKEN') d.token = sandbox.botToken;
    gw.send(frame);
    expect(await gw.closed).toBe(code);
  });

  it('closes with 4012 on an API version other than 10', async () => {
    const gw = connect('?v=9&encoding=json');
    expect(await gw.closed).toBe(CloseCode.InvalidApiVersion);
  });

  it('does not send member events without the GUILD_MEMBERS intent', async () => {
    const gw = connect();
    await gw.frame((f) => f.op === 10);
    gw.send({ op: 2, d: { token: sandbox.botToken, intents: Intent.Guilds, properties: {} } });
    await gw.frame((f) => f.t === 'GUILD_CREATE');
    sandbox.addMember(guildId);
    sandbox.createRole(guildId, { name: 'Gold' });
    await gw.frame((f) => f.t === 'GUILD_ROLE_CREATE');
    expect(gw.frames.some((f) => f.t === 'GUILD_MEMBER_ADD')).toBe(false);
  });

  it('Membership Screening: the guild lists the feature; a joiner is pending until they accept or are given a role', async () => {
    sandbox.setScreening(guildId, true);
    const gw = connect();
    await gw.frame((f) => f.op === 10);
    gw.send({ op: 2, d: { token: sandbox.botToken, intents: Intent.Guilds | Intent.GuildMembers, properties: {} } });
    const create = await gw.frame((f) => f.t === 'GUILD_CREATE');
    expect((create.d as { features: string[] }).features).toEqual(['COMMUNITY', 'MEMBER_VERIFICATION_GATE_ENABLED']);

    const { userId: ann } = sandbox.addMember(guildId, { username: 'ann' });
    const added = await gw.frame((f) => f.t === 'GUILD_MEMBER_ADD');
    expect(added.d).toMatchObject({ user: { id: ann }, roles: [], pending: true });
    sandbox.completeScreening(guildId, ann);
    const accepted = await gw.frame((f) => f.t === 'GUILD_MEMBER_UPDATE');
    expect(accepted.d).toMatchObject({ user: { id: ann }, pending: false });
    expect(() => sandbox.completeScreening(guildId, ann)).toThrow(/not pending/);

    // A role given to a pending member lets them skip the rules, as in Discord.
    const { userId: ben } = sandbox.addMember(guildId, { username: 'ben' });
    const gold = sandbox.createRole(guildId, { name: 'Gold' }).id;
    sandbox.setMemberRolesByHand(guildId, ben, [gold]);
    expect(sandbox.members(guildId).find((m) => m.userId === ben)).toMatchObject({ roleIds: [gold], pending: false });
  });

  it('answers RESUME of an unknown session with INVALID_SESSION (d: false)', async () => {
    const gw = connect();
    await gw.frame((f) => f.op === 10);
    gw.send({ op: 6, d: { token: sandbox.botToken, session_id: 'nope', seq: 3 } });
    expect(await gw.frame((f) => f.op === 9)).toMatchObject({ op: 9, d: false });
  });

  it('resumes a dropped session and replays the dispatches it missed', async () => {
    const first = connect();
    await first.frame((f) => f.op === 10);
    first.send({ op: 2, d: { token: sandbox.botToken, intents: Intent.Guilds | Intent.GuildMembers, properties: {} } });
    const ready = await first.frame((f) => f.t === 'READY');
    await first.frame((f) => f.t === 'GUILD_CREATE');
    first.close(4000);
    await first.closed;
    const { userId } = sandbox.addMember(guildId, { username: 'dave' });

    const second = connect();
    await second.frame((f) => f.op === 10);
    second.send({ op: 6, d: { token: sandbox.botToken, session_id: (ready.d as { session_id: string }).session_id, seq: 2 } });
    const missed = await second.frame((f) => f.t === 'GUILD_MEMBER_ADD');
    expect(missed.s).toBe(3);
    expect((missed.d as { user: { id: string } }).user.id).toBe(userId);
    expect((await second.frame((f) => f.t === 'RESUMED')).s).toBe(4);
  });

  it('answers REQUEST_GUILD_MEMBERS with GUILD_MEMBERS_CHUNK', async () => {
    const gw = connect();
    await gw.frame((f) => f.op === 10);
    gw.send({ op: 2, d: { token: sandbox.botToken, intents: Intent.Guilds | Intent.GuildMembers, properties: {} } });
    await gw.frame((f) => f.t === 'GUILD_CREATE');
    const { userId } = sandbox.addMember(guildId, { username: 'erin' });
    gw.send({ op: 8, d: { guild_id: guildId, user_ids: [userId, '100000000000000001'], nonce: 'n1' } });
    const chunk = await gw.frame((f) => f.t === 'GUILD_MEMBERS_CHUNK');
    expect(chunk.d).toMatchObject({ guild_id: guildId, chunk_index: 0, chunk_count: 1, nonce: 'n1', not_found: ['100000000000000001'] });
    expect((chunk.d as { members: Array<{ user: { id: string } }> }).members.map((m) => m.user.id)).toEqual([userId]);
  });
});
