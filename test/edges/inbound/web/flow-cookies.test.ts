import type { AddressInfo } from 'node:net';
import express from 'express';
import { createFlowCookies } from '../../../../src/edges/inbound/web/flow-cookies';

/** The flow cookies over real HTTP: their attributes by PUBLIC_URL's scheme, and what is read back. */
async function serve(secure: boolean) {
  const cookies = createFlowCookies({ secure: () => secure });
  const app = express();
  app.get('/set', (_req, res) => {
    cookies.set(res, { flowId: 'abcdef0123456789', nonce: 'n0nce_-value' }, 15 * 60_000);
    res.end();
  });
  app.get('/clear', (_req, res) => {
    cookies.clear(res, 'abcdef0123456789');
    res.end();
  });
  app.get('/read', (req, res) => {
    res.json({ value: cookies.reader(req)('abcdef0123456789') ?? null });
  });
  const server = app.listen(0);
  await new Promise((resolve) => server.once('listening', resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { base, close: () => new Promise((resolve) => server.close(resolve)) };
}

test('over http: HttpOnly, SameSite=Lax, Path=/, a Max-Age, no Secure', async () => {
  const s = await serve(false);
  try {
    expect((await fetch(`${s.base}/set`)).headers.getSetCookie()).toEqual([
      'tierlink_flow_abcdef0123456789=n0nce_-value; Path=/; Max-Age=900; HttpOnly; SameSite=Lax',
    ]);
    expect((await fetch(`${s.base}/clear`)).headers.getSetCookie()).toEqual([
      'tierlink_flow_abcdef0123456789=; Path=/; Max-Age=0; HttpOnly; SameSite=Lax',
    ]);
  } finally {
    await s.close();
  }
});

test('over https: Secure, with the __Host- prefix (no Domain, Path=/), and read back under that name only', async () => {
  const s = await serve(true);
  try {
    expect((await fetch(`${s.base}/set`)).headers.getSetCookie()).toEqual([
      '__Host-tierlink_flow_abcdef0123456789=n0nce_-value; Path=/; Max-Age=900; HttpOnly; SameSite=Lax; Secure',
    ]);
    const read = async (cookie: string) =>
      ((await (await fetch(`${s.base}/read`, { headers: { cookie } })).json()) as { value: string | null }).value;
    expect(await read('__Host-tierlink_flow_abcdef0123456789=n0nce_-value; other=1')).toBe('n0nce_-value');
    // A cookie without the prefix could have been set by another site on the domain: not read.
    expect(await read('tierlink_flow_abcdef0123456789=n0nce_-value')).toBeNull();
    expect(await read('__Host-tierlink_flow_abcdef0123456789=<script>')).toBeNull();
    expect(await read(`__Host-tierlink_flow_abcdef0123456789=n0nce_-value; pad=${'x'.repeat(9000)}`)).toBeNull();
  } finally {
    await s.close();
  }
});
