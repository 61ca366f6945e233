import { startWebhookReceiver } from '@tierlink/sandbox';
import { UNPACED_PATREON, raisedPatreon } from '../../../support/raised-limits';
import type { PatreonApiError, ServiceDialect } from '../../../../src/edges/outbound/patreon';
import {
  MEMBER_TRIGGERS,
  PatreonApiError as ApiError,
  RENAMES,
  createDialectMemory,
  dialectOfBaseUrl,
  keyValueDialectStore,
  memoryDialectStore,
  nameIn,
} from '../../../../src/edges/outbound/patreon';
import { dialectNamesIn } from '../../../../src/edges/outbound/patreon/dialect';
import { silentLogger } from '../../../../src/shared/logger';
import type { Harness, HarnessOptions } from './harness';
import { listAll, startHarness } from './harness';

const ROLE = '112233445566778899';
const SERVER = '998877665544332211';

const badRequest = (detail: string): PatreonApiError =>
  new ApiError({ kind: 'bad_request', status: 400, method: 'GET', path: '/x', errors: [{ code_name: 'ParameterInvalidOnType', detail }] });

describe('the table of renamed names', () => {
  it.each([
    ['campaignServer', 'chat_server_id', 'discord_server_id'],
    ['campaignAnalytics', 'analytics_id', 'google_analytics_id'],
    ['tierRoles', 'chat_role_ids', 'discord_role_ids'],
    ['memberFreeTrial', null, 'is_free_trial'],
    ['memberGifted', null, 'is_gifted'],
    ['memberPageSize', null, 'page[count]'],
    ['signatureHeader', 'X-Service-Signature', 'X-Patreon-Signature'],
    ['eventHeader', null, 'X-Patreon-Event'],
  ] as const)('%s is %s in the spec and %s at Patreon', (key, spec, patreon) => {
    expect(nameIn('spec', key)).toBe(spec);
    expect(nameIn('patreon', key)).toBe(patreon);
  });

  it.each([
    ['https://www.patreon.com', 'patreon'],
    ['https://patreon.com/', 'patreon'],
    ['HTTPS://WWW.PATREON.COM', 'patreon'],
    ['http://127.0.0.1:41234', null],
    ['https://www.patreon.com.evil.example', null],
    ['not a url', null],
  ])('base URL %s → %s', (url, dialect) => {
    expect(dialectOfBaseUrl(url)).toBe(dialect);
  });

  it('finds the dialect-specific names a query carries', () => {
    const query = new URLSearchParams({
      'fields[tier]': 'title,discord_role_ids',
      'fields[member]': 'is_gifted,patron_status',
      'page[count]': '1000',
    });
    expect(dialectNamesIn(query, 'patreon').sort()).toEqual(['discord_role_ids', 'is_gifted', 'page[count]']);
    expect(dialectNamesIn(query, 'spec')).toEqual([]);
    expect(dialectNamesIn(new URLSearchParams({ 'fields[campaign]': 'vanity,chat_server_id' }), 'spec')).toEqual(['chat_server_id']);
  });
});

describe('dialect memory', () => {
  const memory = (baseUrl: string, stored: ServiceDialect | null = null) => {
    const store = memoryDialectStore(stored);
    const saves: ServiceDialect[] = [];
    const save = store.save;
    store.save = async (d) => {
      saves.push(d);
      await save(d);
    };
    return { store, saves, memory: createDialectMemory({ baseUrl, store, logger: silentLogger }) };
  };

  it("Patreon's own base URL speaks Patreon's dialect and never switches or reads the store", async () => {
    const m = memory('https://www.patreon.com', 'spec');
    expect(await m.memory.current()).toBe('patreon');
    expect(await m.memory.source()).toBe('base-url');
    expect(await m.memory.rejected('patreon', badRequest("'discord_role_ids' is not a valid attribute"))).toBe(false);
    expect(await m.memory.current()).toBe('patreon');
    expect(m.saves).toEqual([]);
  });

  it("another base URL tries the spec's first; any 400 to a dialect-specific request switches once; the first answer saves it", async () => {
    const m = memory('http://127.0.0.1:1');
    expect(await m.memory.current()).toBe('spec');
    expect(await m.memory.rejected('spec', badRequest('Bad Request'))).toBe(true);
    expect(await m.memory.current()).toBe('patreon');
    expect(m.saves).toEqual([]);
    await m.memory.confirm('patreon');
    expect(m.saves).toEqual(['patreon']);
    expect(await m.memory.source()).toBe('learned');
    await m.memory.confirm('patreon');
    expect(m.saves).toEqual(['patreon']);
  });

  it('a stored dialect is spoken at once, and left only when a 400 names one of its own names', async () => {
    const m = memory('http://127.0.0.1:1', 'patreon');
    expect(await m.memory.current()).toBe('patreon');
    expect(await m.memory.rejected('patreon', badRequest('page[cursor] is not a cursor of this list'))).toBe(false);
    expect(await m.memory.rejected('patreon', badRequest("fields[campaign]: unknown attribute 'discord_server_id'"))).toBe(true);
    expect(await m.memory.current()).toBe('spec');
  });

  it('when the other dialect is refused too, the earlier one is kept and only a 400 naming its names switches again', async () => {
    const m = memory('http://127.0.0.1:1');
    expect(await m.memory.rejected('spec', badRequest('Bad Request'))).toBe(true);
    await m.memory.retryFailed('patreon');
    expect(await m.memory.current()).toBe('spec');
    expect(await m.memory.source()).toBe('settled');
    expect(await m.memory.rejected('spec', badRequest('Bad Request'))).toBe(false);
    expect(await m.memory.rejected('spec', badRequest("'chat_server_id' is not a valid attribute of campaign"))).toBe(true);
    expect(await m.memory.current()).toBe('patreon');
    expect(m.saves).toEqual([]);
  });

  it('kept in a key-value store (the database), per base URL: another process speaks it at once; another service learns afresh', async () => {
    const values = new Map<string, unknown>();
    const kv = {
      get: async <T>(k: string) => (values.get(k) as T | undefined) ?? null,
      set: async (k: string, v: unknown) => void values.set(k, v),
    };
    const first = createDialectMemory({
      baseUrl: 'http://127.0.0.1:1/',
      store: keyValueDialectStore(kv, 'http://127.0.0.1:1/'),
      logger: silentLogger,
    });
    await first.rejected('spec', badRequest('Bad Request'));
    await first.confirm('patreon');
    expect([...values]).toEqual([['service-dialect:http://127.0.0.1:1', 'patreon']]);

    const second = createDialectMemory({
      baseUrl: 'http://127.0.0.1:1',
      store: keyValueDialectStore(kv, 'http://127.0.0.1:1'),
      logger: silentLogger,
    });
    expect(await second.current()).toBe('patreon');
    expect(await second.source()).toBe('stored');
    const elsewhere = createDialectMemory({
      baseUrl: 'http://127.0.0.1:2',
      store: keyValueDialectStore(kv, 'http://127.0.0.1:2'),
      logger: silentLogger,
    });
    expect(await elsewhere.source()).toBe('guess');
    values.set('service-dialect:http://127.0.0.1:2', 'klingon');
    expect(await keyValueDialectStore(kv, 'http://127.0.0.1:2').load()).toBeNull();
  });

  it('a request that was sent in the dialect another request already left is sent again in the current one', async () => {
    const m = memory('http://127.0.0.1:1');
    await m.memory.rejected('spec', badRequest('x'));
    expect(await m.memory.rejected('spec', badRequest('x'))).toBe(true);
    expect(await m.memory.current()).toBe('patreon');
  });
});

/** The type an include path points at. */
const TYPE_OF: Record<string, string> = {
  memberships: 'member',
  campaign: 'campaign',
  currently_entitled_tiers: 'tier',
  user: 'user',
  tiers: 'tier',
  creator: 'user',
};

describe("the client in Patreon's dialect (against the stand-in)", () => {
  let h: Harness;
  let gold: string;
  const start = async (options: HarnessOptions = {}) => {
    h = await startHarness({
      budgetLimits: UNPACED_PATREON,
      ...options,
      sandbox: { dialect: 'patreon', ...raisedPatreon("these checks are about the dialect's names, not the pace"), ...options.sandbox },
    });
    gold = h.sb.createTier(h.sb.campaignId, { title: 'Gold', amountCents: 500, discordRoleIds: [ROLE] }).id;
  };
  afterEach(() => h.close());
  const rejected = () => h.sb.requests().filter((r) => r.status === 400);

  it('learns the dialect from the first 400, once: later requests and a second process pay no rejected request', async () => {
    await start();
    h.sb.generateMembers({ campaignId: h.sb.campaignId, count: 2_500, seed: 3 });
    const [details] = await h.client.getCampaigns();
    expect(rejected()).toHaveLength(1);
    expect(rejected()[0]?.query['fields[campaign]']).toContain('chat_server_id');
    expect(details?.tiers.find((t) => t.id === gold)?.roleIds.everywhere).toEqual([ROLE]);
    expect(await h.dialectStore.load()).toBe('patreon');

    h.sb.resetRequests();
    const { ids, pages } = await listAll(h.client, h.sb.campaignId);
    expect(ids).toHaveLength(2_500);
    expect(pages).toBe(3);
    const lists = h.sb.requests();
    expect(lists).toHaveLength(3);
    for (const r of lists) {
      expect(r.status).toBe(200);
      expect(r.query['page[count]']).toBe('1000');
      expect(r.query['fields[tier]']).toContain('discord_role_ids');
      expect(r.query['fields[member]']?.split(',')).toEqual(expect.arrayContaining(['is_free_trial', 'is_gifted']));
    }

    h.sb.resetRequests();
    const second = h.secondClient();
    await second.getCampaign(h.sb.campaignId);
    await listAll(second, h.sb.campaignId);
    expect(h.sb.requests().every((r) => r.status === 200)).toBe(true);
    expect(h.sb.requests()).toHaveLength(4);
  });

  it('a sync in the dialect learned by an earlier process sends exactly one request per 1,000 members and no rejected one', async () => {
    await start({ storedDialect: 'patreon' });
    h.sb.generateMembers({ campaignId: h.sb.campaignId, count: 4_321, seed: 9 });
    h.sb.resetRequests();
    const { ids, pages } = await listAll(h.client, h.sb.campaignId);
    expect(ids).toHaveLength(4_321);
    expect(pages).toBe(5);
    expect(h.sb.requests().map((r) => r.status)).toEqual([200, 200, 200, 200, 200]);
  });

  it('follows whatever page size the service answers with', async () => {
    await start({ storedDialect: 'patreon', sandbox: { maxPageSize: 20 } });
    const { memberIds } = h.sb.generateMembers({ campaignId: h.sb.campaignId, count: 95, seed: 4 });
    const { ids, pages } = await listAll(h.client, h.sb.campaignId);
    expect(ids).toEqual(memberIds);
    expect(pages).toBe(5);
    expect(h.sb.requests().every((r) => r.query['page[count]'] === '1000')).toBe(true);
  });

  it('names fields[...] for every type each request includes, and only attributes the service has', async () => {
    await start({ storedDialect: 'patreon' });
    const receiver = await startWebhookReceiver();
    try {
      const patron = h.sb.createUser({ fullName: 'Pat Ron', discordUserId: '323456789012345678' });
      const member = h.sb.setMembership(patron.id, h.sb.campaignId, { tierIds: [gold] }, { deliver: false });
      const patronToken = h.sb.issueTokens(patron.id, ['identity', 'identity.memberships', 'campaigns']).accessToken;
      await h.client.getIdentity(patronToken, { includeMemberships: true });
      await h.client.getMember(member.id);
      await h.client.getCampaigns();
      await h.client.getCampaign(h.sb.campaignId);
      await listAll(h.client, h.sb.campaignId);
      await h.client.createWebhook({ campaignId: h.sb.campaignId, uri: receiver.url, triggers: MEMBER_TRIGGERS });
      await h.client.listWebhooks();
      const reads = h.sb.requests().filter((r) => r.method === 'GET');
      expect(reads.length).toBeGreaterThanOrEqual(6);
      for (const r of reads) {
        expect(r.status).toBe(200);
        const types = (r.query.include ?? '')
          .split(',')
          .filter((p) => p !== '')
          .map((p) => TYPE_OF[p.split('.').at(-1) ?? ''] ?? `unknown ${p}`);
        for (const type of types) expect([r.path, Object.keys(r.query)]).toEqual([r.path, expect.arrayContaining([`fields[${type}]`])]);
      }
    } finally {
      await receiver.close();
    }
  });

  it("a patron's identity read brings the entitled tiers with their role ids", async () => {
    await start({ storedDialect: 'patreon' });
    const patron = h.sb.createUser({ fullName: 'Pat Ron' });
    h.sb.setMembership(patron.id, h.sb.campaignId, { tierIds: [gold], isGifted: true }, { deliver: false });
    const token = h.sb.issueTokens(patron.id, ['identity']).accessToken;
    const identity = await h.client.getIdentity(token, { includeMemberships: true });
    expect(identity.members).toEqual([expect.objectContaining({ campaignId: h.sb.campaignId, entitledTierIds: [gold], isGifted: true })]);
    expect(identity.tiers).toEqual([
      expect.objectContaining({ id: gold, campaignId: h.sb.campaignId, title: 'Gold', roleIds: { everywhere: [ROLE], byGuild: {} } }),
    ]);
    expect(identity.unreadable).toEqual([]);
  });

  it("reads the campaign's discord_server_id as its server", async () => {
    await start({ storedDialect: 'patreon' });
    const other = h.sb.createCampaign({ chatServerId: SERVER });
    expect((await h.client.getCampaign(other.id)).campaign.chatServerId).toBe(SERVER);
  });

  it('lists webhooks without the campaign relationship (campaignId null) and un-pauses one', async () => {
    await start({ storedDialect: 'patreon', sandbox: { webhookListCampaign: 'omitted' } });
    const receiver = await startWebhookReceiver();
    try {
      const created = await h.client.createWebhook({ campaignId: h.sb.campaignId, uri: receiver.url, triggers: MEMBER_TRIGGERS });
      const [listed] = await h.client.listWebhooks();
      expect(listed).toEqual({ ...created, campaignId: null });
      h.sb.pauseWebhook(created.id);
      expect(await h.client.updateWebhook(created.id, { paused: false })).toMatchObject({ paused: false });
    } finally {
      await receiver.close();
    }
  });

  it('a 400 that is about something else costs one extra request once, then no more guessing', async () => {
    await start();
    h.sb.injectFault({ path: /campaigns/, status: 400, times: 2, detail: 'Something else is wrong.' });
    await expect(h.client.getCampaigns()).rejects.toMatchObject({ kind: 'bad_request' });
    expect(rejected()).toHaveLength(2);
    h.sb.injectFault({ path: /campaigns/, status: 400, times: 1, detail: 'Something else is wrong.' });
    await expect(h.client.getCampaigns()).rejects.toMatchObject({ kind: 'bad_request' });
    expect(rejected()).toHaveLength(3);
    expect(await h.dialect.source()).toBe('settled');
    // The service's own 400 names the spec's attribute: that one still teaches the dialect.
    await h.client.getCampaigns();
    expect(rejected()).toHaveLength(4);
    expect(await h.dialectStore.load()).toBe('patreon');
  });
});

describe("the client in the spec's dialect", () => {
  let h: Harness;
  afterEach(() => h.close());

  it("sends none of Patreon's names and no page size, and is never refused", async () => {
    h = await startHarness();
    const tier = h.sb.createTier(h.sb.campaignId, { title: 'Gold', amountCents: 500, chatRoleIds: [ROLE] });
    const patron = h.sb.createUser({ fullName: 'Pat Ron' });
    const member = h.sb.setMembership(patron.id, h.sb.campaignId, { tierIds: [tier.id] }, { deliver: false });
    h.sb.generateMembers({ campaignId: h.sb.campaignId, count: 1_500, seed: 1 });
    await h.client.getCampaigns();
    await h.client.getMember(member.id);
    await h.client.getIdentity(h.sb.issueTokens(patron.id, ['identity']).accessToken, { includeMemberships: true });
    await listAll(h.client, h.sb.campaignId);
    const patreonNames = Object.values(RENAMES)
      .map((r) => r.patreon)
      .filter((n): n is NonNullable<typeof n> => n !== null && RENAMES.eventHeader.patreon !== n && RENAMES.signatureHeader.patreon !== n);
    for (const r of h.sb.requests()) {
      expect(r.status).toBe(200);
      const sent = [...Object.keys(r.query), ...Object.values(r.query).flatMap((v) => v.split(','))];
      for (const name of patreonNames) expect(sent).not.toContain(name);
    }
    expect(await h.dialectStore.load()).toBe('spec');
  });
});
