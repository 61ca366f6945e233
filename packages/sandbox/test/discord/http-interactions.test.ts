import { createPublicKey, verify } from 'node:crypto';
import { createServer } from 'node:http';
import type { IncomingHttpHeaders, Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { REST } from '@discordjs/rest';
import { Events, GatewayIntentBits, Routes } from 'discord.js';
import { createDiscordSandbox } from '@tierlink/sandbox/discord';
import type { DiscordSandbox } from '@tierlink/sandbox/discord';
import { readyClient } from './clients';

interface Reply {
  status: number;
  body?: unknown;
  contentType?: string;
  /** Real milliseconds to wait before answering. */
  delayMs?: number;
}

type Handler = (interaction: Record<string, unknown>) => Reply | Promise<Reply>;

/**
 * An app's `POST /interactions` as the product would write it: the signature checked over
 * timestamp + raw body with the public key (docs/discord-api-notes.md §3), PING answered with PONG,
 * everything else handed to the test's handler.
 */
class AppEndpoint {
  handler: Handler = () => ({ status: 500 });
  /** Accepts every signature (a broken app), to see Discord refuse it. */
  skipVerification = false;
  readonly received: Array<{ headers: IncomingHttpHeaders; body: Record<string, unknown>; verified: boolean }> = [];
  private server: Server | null = null;
  url = '';

  constructor(private readonly publicKeyHex: string) {}

  private verified(headers: IncomingHttpHeaders, raw: Buffer): boolean {
    const signature = headers['x-signature-ed25519'];
    const timestamp = headers['x-signature-timestamp'];
    if (typeof signature !== 'string' || typeof timestamp !== 'string') return false;
    const key = createPublicKey({
      key: { kty: 'OKP', crv: 'Ed25519', x: Buffer.from(this.publicKeyHex, 'hex').toString('base64url') },
      format: 'jwk',
    });
    return verify(null, Buffer.concat([Buffer.from(timestamp), raw]), key, Buffer.from(signature, 'hex'));
  }

  async start(): Promise<void> {
    this.server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const raw = Buffer.concat(chunks);
        const body = JSON.parse(raw.toString('utf8')) as Record<string, unknown>;
        const verified = this.verified(req.headers, raw);
        this.received.push({ headers: req.headers, body, verified });
        void (async () => {
          const reply: Reply =
            !verified && !this.skipVerification
              ? { status: 401, body: { error: 'invalid request signature' } }
              : body.type === 1
                ? { status: 200, body: { type: 1 } }
                : await this.handler(body);
          if (reply.delayMs) await new Promise((r) => setTimeout(r, reply.delayMs));
          if (res.destroyed) return;
          if (reply.body === undefined) {
            res.writeHead(reply.status).end();
          } else {
            res.writeHead(reply.status, { 'Content-Type': reply.contentType ?? 'application/json' }).end(JSON.stringify(reply.body));
          }
        })();
      });
    });
    await new Promise<void>((resolve) => this.server?.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/interactions`;
  }

  async stop(): Promise<void> {
    await new Promise<void>((resolve) => {
      this.server?.close(() => resolve());
      this.server?.closeAllConnections();
    });
  }

  /** The interactions (not PINGs) that arrived. */
  commands(): Array<Record<string, unknown>> {
    return this.received.filter((r) => r.body.type !== 1).map((r) => r.body);
  }
}

describe('HTTP interactions (Interactions Endpoint URL)', () => {
  let sandbox: DiscordSandbox;
  let app: AppEndpoint;
  let guildId: string;
  let aliceId: string;
  let rest: REST;

  beforeEach(async () => {
    sandbox = await createDiscordSandbox({ interactionTimeoutMs: 600 });
    ({ guildId } = sandbox.createGuild());
    aliceId = sandbox.addMember(guildId, { username: 'alice' }).userId;
    app = new AppEndpoint(sandbox.publicKey);
    await app.start();
    rest = new REST({ api: sandbox.apiBaseUrl }).setToken(sandbox.botToken);
  });

  afterEach(async () => {
    await sandbox.close();
    await app.stop();
  });

  it('keeps a URL only when it answers the signed PING and refuses a bad signature with 401', async () => {
    app.skipVerification = true;
    await expect(sandbox.setInteractionsEndpoint(app.url)).rejects.toThrow(
      /could not be verified.*invalid signature was answered 200, not 401/,
    );
    expect(sandbox.interactionsEndpointUrl()).toBeNull();
    await expect(sandbox.setInteractionsEndpoint('http://127.0.0.1:9/interactions')).rejects.toThrow(/did not answer/);
    app.skipVerification = false;
    await sandbox.setInteractionsEndpoint(app.url);
    expect(sandbox.interactionsEndpointUrl()).toBe(app.url);
    const pings = app.received.filter((r) => r.body.type === 1);
    expect(pings.map((p) => p.verified)).toEqual([true, false, true, false]);
    expect(pings[0]?.headers['content-type']).toBe('application/json');
    expect(pings[0]?.headers['x-signature-timestamp']).toMatch(/^\d{10}$/);
    const me = (await rest.get(Routes.currentApplication())) as { verify_key: string; interactions_endpoint_url: string };
    expect(me).toMatchObject({ verify_key: sandbox.publicKey, interactions_endpoint_url: app.url });

    // Routine check: an app that stops checking signatures loses its URL.
    app.skipVerification = true;
    expect(await sandbox.checkInteractionsEndpoint()).toBe(false);
    expect(sandbox.interactionsEndpointUrl()).toBeNull();
  });

  it('delivers a command only by signed POST while the URL is set, and records the inline answer', async () => {
    const client = await readyClient(sandbox, [GatewayIntentBits.Guilds]);
    let overGateway = 0;
    client.on(Events.InteractionCreate, () => {
      overGateway += 1;
    });
    try {
      await sandbox.setInteractionsEndpoint(app.url);
      app.handler = (i) => ({
        status: 200,
        body: { type: 4, data: { content: `hi ${String((i.member as { user: { id: string } }).user.id)}`, flags: 64 } },
      });
      const { interactionId } = sandbox.injectCommand({ guildId, userId: aliceId, name: 'status' });
      const response = await sandbox.waitForInteractionResponse(interactionId, { final: true });
      expect(response).toMatchObject({ kind: 'callback', type: 4, ephemeral: true, data: { content: `hi ${aliceId}` } });
      expect(sandbox.interactionDelivery(interactionId)).toEqual({ mode: 'http', state: 'answered', httpStatus: 200 });
      expect(app.commands()).toMatchObject([{ id: interactionId, type: 2, guild_id: guildId, data: { name: 'status' } }]);
      expect(app.received.filter((r) => r.body.type === 2).every((r) => r.verified)).toBe(true);

      // Back to the gateway once the URL is removed.
      await sandbox.setInteractionsEndpoint(null);
      const seen = new Promise<void>((resolve) => client.once(Events.InteractionCreate, () => resolve()));
      const viaGateway = sandbox.injectCommand({ guildId, userId: aliceId, name: 'status' });
      await seen;
      expect(overGateway).toBe(1);
      expect(sandbox.interactionDelivery(viaGateway.interactionId)).toMatchObject({ mode: 'gateway' });
      expect(app.commands()).toHaveLength(1);
    } finally {
      await client.destroy();
    }
  });

  it('needs no gateway connection, and accepts a deferral followed by an edit of @original', async () => {
    await sandbox.setInteractionsEndpoint(app.url);
    app.handler = (i) => {
      setTimeout(() => {
        void rest.patch(Routes.webhookMessage(sandbox.applicationId, String(i.token), '@original'), {
          body: { content: 'synced' },
          auth: false,
        });
      }, 50);
      return { status: 200, body: { type: 5, data: { flags: 64 } } };
    };
    const { interactionId } = sandbox.injectCommand({ guildId, userId: aliceId, name: 'sync' });
    const final = await sandbox.waitForInteractionResponse(interactionId, { final: true });
    expect(final).toMatchObject({ kind: 'edit', messageId: '@original', data: { content: 'synced' }, ephemeral: true });
    expect(sandbox.interactionResponses(interactionId).map((r) => r.kind)).toEqual(['callback', 'edit']);
  });

  it('accepts the callback endpoint with a 202, and fails a 202 that never called back', async () => {
    await sandbox.setInteractionsEndpoint(app.url);
    app.handler = async (i) => {
      await rest.post(Routes.interactionCallback(String(i.id), String(i.token)), {
        body: { type: 4, data: { content: 'by callback' } },
        auth: false,
      });
      return { status: 202 };
    };
    const answered = sandbox.injectCommand({ guildId, userId: aliceId, name: 'status' });
    expect(await sandbox.waitForInteractionResponse(answered.interactionId)).toMatchObject({ type: 4, data: { content: 'by callback' } });

    app.handler = () => ({ status: 202 });
    const silent = sandbox.injectCommand({ guildId, userId: aliceId, name: 'status' });
    await expect(sandbox.waitForInteractionResponse(silent.interactionId, { timeoutMs: 5_000 })).rejects.toThrow(
      /never used the callback endpoint/,
    );
    expect(sandbox.interactionDelivery(silent.interactionId)).toMatchObject({ state: 'failed', httpStatus: 202 });
    // The first one's 202 came long before the second one's window closed.
    expect(sandbox.interactionDelivery(answered.interactionId)).toEqual({ mode: 'http', state: 'answered', httpStatus: 202 });
  });

  it('fails an interaction answered 200 after a callback, too late, with the wrong type, or refused', async () => {
    await sandbox.setInteractionsEndpoint(app.url);
    const failure = async (handler: Handler): Promise<string | undefined> => {
      app.handler = handler;
      const { interactionId } = sandbox.injectCommand({ guildId, userId: aliceId, name: 'status' });
      await sandbox.waitForInteractionResponse(interactionId, { timeoutMs: 5_000, where: () => false }).catch(() => undefined);
      return sandbox.interactionDelivery(interactionId).error;
    };
    expect(
      await failure(async (i) => {
        await rest.post(Routes.interactionCallback(String(i.id), String(i.token)), { body: { type: 5 }, auth: false });
        return { status: 200, body: { type: 4, data: { content: 'twice' } } };
      }),
    ).toMatch(/Discord expects 202/);
    expect(await failure(() => ({ status: 200, body: { type: 4, data: { content: 'late' } }, delayMs: 1_000 }))).toMatch(
      /no answer within 600 ms/,
    );
    expect(await failure(() => ({ status: 200, body: { type: 8, data: { choices: [] } } }))).toMatch(/not a valid interaction response/);
    expect(await failure(() => ({ status: 200, body: { type: 4, data: { content: 'x' } }, contentType: 'text/plain' }))).toMatch(
      /Content-Type/,
    );
    expect(await failure(() => ({ status: 401 }))).toBe('the endpoint answered 401');
  });

  it('refuses the callback of a failed interaction with 10062', async () => {
    await sandbox.setInteractionsEndpoint(app.url);
    let token = '';
    app.handler = (i) => {
      token = String(i.token);
      return { status: 500 };
    };
    const { interactionId } = sandbox.injectCommand({ guildId, userId: aliceId, name: 'status' });
    await expect(sandbox.waitForInteractionResponse(interactionId)).rejects.toThrow(/answered 500/);
    await expect(
      rest.post(Routes.interactionCallback(interactionId, token), { body: { type: 4, data: { content: 'too late' } }, auth: false }),
    ).rejects.toMatchObject({ code: 10062 });
  });

  it('delivers autocomplete and takes the choices inline', async () => {
    await sandbox.setInteractionsEndpoint(app.url);
    app.handler = (i) => {
      const typed = String(((i.data as { options: Array<{ value: string }> }).options[0] ?? { value: '' }).value);
      return {
        status: 200,
        body: { type: 8, data: { choices: ['gold', 'silver'].filter((t) => t.startsWith(typed)).map((t) => ({ name: t, value: t })) } },
      };
    };
    const { interactionId } = sandbox.injectCommand({
      guildId,
      userId: aliceId,
      name: 'map',
      options: [{ name: 'tier', type: 3, value: 'go' }],
      focused: 'tier',
    });
    expect(await sandbox.waitForInteractionResponse(interactionId)).toMatchObject({
      type: 8,
      data: { choices: [{ name: 'gold', value: 'gold' }] },
    });
    expect(app.commands()[0]).toMatchObject({ type: 4 });
  });

  it('sets the URL through the HTTP control API', async () => {
    const put = (url: string | null) =>
      fetch(`${sandbox.baseUrl}/__sandbox/interactions-endpoint`, { method: 'PUT', body: JSON.stringify({ url }) });
    app.skipVerification = true;
    const refused = await put(app.url);
    expect(refused.status).toBe(400);
    app.skipVerification = false;
    const accepted = await put(app.url);
    expect(await accepted.json()).toEqual({ url: app.url, publicKey: sandbox.publicKey });
  });
});
