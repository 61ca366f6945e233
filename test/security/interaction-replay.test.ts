import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { type E2E, startE2E } from '../support/e2e';

/**
 * Attack: someone who saw one signed `POST /interactions` (a log of a proxy, a captured request)
 * sends it again while its signature is still fresh (Discord's timestamp may be five minutes old),
 * hoping to run the command twice, here or at another instance behind the balancer. Refusal: every
 * interaction id is taken once, in the database every instance shares; a repeat is answered 409
 * and nothing runs.
 */

interface Recorded {
  headers: http.IncomingHttpHeaders;
  raw: Buffer;
}

/** Between Discord and Tierlink: passes every request on and keeps a copy (the attacker's vantage point). */
async function startRelay(target: string): Promise<{ url: string; recorded: Recorded[]; close(): Promise<void> }> {
  const recorded: Recorded[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const raw = Buffer.concat(chunks);
      recorded.push({ headers: req.headers, raw });
      void fetch(target, { method: 'POST', headers: pick(req.headers), body: raw }).then(async (answer) => {
        res.writeHead(answer.status, { 'Content-Type': answer.headers.get('content-type') ?? 'application/json' });
        res.end(Buffer.from(await answer.arrayBuffer()));
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/interactions`,
    recorded,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

const pick = (headers: http.IncomingHttpHeaders): Record<string, string> => ({
  'Content-Type': String(headers['content-type'] ?? 'application/json'),
  'X-Signature-Ed25519': String(headers['x-signature-ed25519'] ?? ''),
  'X-Signature-Timestamp': String(headers['x-signature-timestamp'] ?? ''),
});

let e: E2E;
let relay: Awaited<ReturnType<typeof startRelay>>;
beforeAll(async () => {
  e = await startE2E({ connected: true, beforeStart: ({ discord }) => ({ DISCORD_PUBLIC_KEY: discord.publicKey }) });
  relay = await startRelay(`${e.url}/interactions`);
  await e.discord.setInteractionsEndpoint(relay.url);
}, 60_000);
afterAll(async () => {
  await relay?.close();
  await e?.stop();
});

test('a signed interaction sent again within its five minutes is refused 409 and runs nothing', async () => {
  const member = e.discord.addMember(e.guildId, { username: 'replayed' }).userId;
  const { interactionId } = e.discord.injectCommand({ guildId: e.guildId, userId: member, name: 'status' });
  await e.discord.waitForInteractionResponse(interactionId, { final: true, timeoutMs: 10_000 });
  const original = relay.recorded.find((r) => JSON.parse(r.raw.toString('utf8')).id === interactionId)!;
  expect(original).toBeDefined();

  const replays = await Promise.all(
    [1, 2, 3].map(() => fetch(`${e.url}/interactions`, { method: 'POST', headers: pick(original.headers), body: original.raw })),
  );
  expect(replays.map((r) => r.status)).toEqual([409, 409, 409]);
  await new Promise((r) => setTimeout(r, 500));
  expect(e.discord.interactionResponses(interactionId).filter((r) => r.kind === 'callback')).toHaveLength(1);
  expect(e.discord.requests({ route: 'POST /interactions/:i/:t/callback' }).filter((r) => r.status >= 400)).toEqual([]);
  expect(e.log.lines.filter((l) => l.includes('"msg":"interaction received"') && l.includes(interactionId))).toHaveLength(1);
});
