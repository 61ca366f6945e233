import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { type DemoResult, createDemo } from '@tierlink/sandbox/demo';
import { startTierlinkUnderDemo } from '../../demo/tierlink-under-demo';
import { createLogger } from '../../src/edges/outbound/observability/logger';

/** `npm run demo -- --once`, in-process: the whole story against the stand-ins, then a clean stop. */

let tmpRoot: string;
let output = '';
let result: DemoResult;

beforeAll(async () => {
  tmpRoot = fs.mkdtempSync(path.join(os.tmpdir(), 'tierlink-demo-test-'));
  const demo = createDemo({
    once: true,
    out: { write: (text) => void (output += text) },
    color: false,
    tmpRoot,
    startService: startTierlinkUnderDemo,
    createLogger: (destination) => createLogger({ level: 'info', destination }),
  });
  result = await demo.run();
}, 90_000);

afterAll(() => {
  fs.rmSync(tmpRoot, { recursive: true, force: true });
});

const stepLines = () => output.split('\n').filter((line) => / [✓✗] /.test(line));

test('every step of the story succeeds, and the demo stops cleanly and removes its folder', () => {
  expect(output).not.toMatch(/ ✗ /);
  expect(result).toEqual({ outcome: 'ok', storyMs: expect.any(Number), keptDir: null });
  expect(fs.readdirSync(tmpRoot)).toEqual([]);
  expect(output).toMatch(/✓ Stopped the service and the stand-ins; temporary folder removed/);
});

test('each step line carries its timing in ms, and nothing is coloured without a terminal', () => {
  const lines = stepLines();
  expect(lines.length).toBeGreaterThanOrEqual(13);
  for (const line of lines) expect(line).toMatch(/\d[\d,]* ms$/);
  expect(output).not.toContain('\u001b[');
});

test('the creator connects: campaign bound, webhook registered, former-patron role set', () => {
  expect(output).toMatch(/✓ Stand-ins started/);
  expect(output).toMatch(/✓ Tierlink started/);
  expect(output).toMatch(/✓ Casey runs \/connect/);
  expect(output).toMatch(
    /webhook \d+ registered for 7 triggers \(member changes, new posts\) at http:\/\/localhost:\d+\/webhooks\/patreon/,
  );
  expect(output).toMatch(/✓ Casey runs \/settings former_role:@Former Patron/);
  expect(output).toMatch(/Former-patron role: @Former Patron/);
});

test('the patron links, upgrades, keeps her role through the grace period, then lapses to the former-patron role', () => {
  expect(output).toMatch(/✓ Ada runs \/link and allows → Gold before the page loads \(\d[\d,]* ms\)/);
  expect(output).toMatch(/\+ Gold {2}audit log: “Tierlink \(link\): Gold tier \(active patron\)”/);
  expect(output).toMatch(/✓ Ada upgrades to Platinum → Platinum in \d[\d,]* ms, Gold removed/);
  expect(output).toMatch(/✓ Ada’s payment is declined → webhook done in \d[\d,]* ms, Platinum stays/);
  expect(output).toMatch(
    /\/status: .*payment declined on \d{4}-\d\d-\d\d; roles kept until \d{4}-\d\d-\d\d \(7-day grace period\): Platinum/,
  );
  expect(output).toMatch(/day 8 +» 8 days pass/);
  expect(output).toMatch(/✓ The nightly sync, 8 days later → Platinum goes, Former Patron comes/);
  expect(output).toMatch(/− Platinum: no longer entitled to Platinum: .*the 7-day grace period ended on/);
  expect(output).toMatch(/\+ Former Patron: former patron/);
});

test('a dry run then a sync over 5,000 generated members, with their summaries; the hand-given role survives', () => {
  expect(output).toMatch(/✓ 5,000 patrons and 5,000 server members generated/);
  expect(output).toMatch(/✓ Dry run \(npm run sync -- --dry-run\)/);
  expect(output).toMatch(/Full sync, dry run \(nothing was changed\): ok/);
  expect(output).toMatch(/Campaign \d+: \d+ pages, 5,00\d members/);
  const planned = Number(/Would change: ([\d,]+) to add, 0 to remove/.exec(output)?.[1]?.replace(/,/g, ''));
  expect(planned).toBeGreaterThan(0);
  expect(output).toMatch(/Sam: \+ Former Patron: .*; his Gold is not in the plan/);
  const added = /✓ The nightly sync applies it → ([\d,]+) roles added/.exec(output)?.[1];
  expect(Number(added?.replace(/,/g, ''))).toBe(planned);
  expect(output).toMatch(/Full sync: ok/);
  expect(output).toMatch(/✓ Sam keeps the Gold a moderator gave him: Tierlink never granted it/);
  expect(output).toMatch(/Tierlink’s grants to Sam: Former Patron; his roles: Gold, Former Patron/);
});

test('the owner signs in to the dashboard with Discord and sees the server; a member without the permissions is refused', () => {
  expect(output).toMatch(/✓ Casey signs in to the dashboard with Discord and opens the server/);
  expect(output).toMatch(/Overview: (Everything Tierlink needs is in place|\d+ problems? to fix); [\d,]+ roles held by Tierlink/);
  expect(output).toMatch(/Audit log, filtered to Ada/);
  expect(output).toMatch(/✓ Sam, a member without Manage Server or Manage Roles, is refused/);
});

test('the join page: a Gold patron in no server joins with Gold; someone without a pledge is refused before Discord', () => {
  expect(output).toMatch(/✓ Casey runs \/settings join_slug:caseys-fan-club/);
  expect(output).toMatch(/Join page: http:\/\/localhost:\d+\/join\/caseys-fan-club/);
  expect(output).toMatch(/✓ Cleo joins through http:\/\/localhost:\d+\/join\/caseys-fan-club → in the server with Gold \(\d[\d,]* ms\)/);
  expect(output).toMatch(/result page: “You’re in Casey’s Fan Club/);
  expect(output).toMatch(/1 Add Guild Member request carried the role/);
  expect(output).toMatch(/✓ Dan, with no pledge, tries the join link/);
  expect(output).toMatch(/403 before Discord is asked: “Joining is for patrons”/);
});
