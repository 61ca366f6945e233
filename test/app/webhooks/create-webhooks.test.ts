import { MEMBER_RECHECK_JOB } from '../../../src/app/webhooks/member-refresh';
import { CAMPAIGN_SYNC_JOB } from '../../../src/app/sync';
import { wireSync } from '../../support/sync-kit';
import { type World, createWorld } from '../../support/world';
import { type Instance, jobRows, startInstance } from './harness';

let world: World;
let instance: Instance | undefined;

beforeAll(async () => {
  world = await createWorld();
});
afterAll(() => world.close());
beforeEach(async () => {
  await world.reset();
  world.patreon.clearDeliveries();
  world.patreon.clearFaults();
});
afterEach(async () => {
  await instance?.close();
  instance = undefined;
});

test('a paused webhook asks the sync subsystem for a campaign heal, which the shared job queue works as a full sync of that campaign', async () => {
  const { sync, syncRuns } = wireSync(world);
  instance = await startInstance(world, { requestCampaignSync: (campaignId, reason) => sync.requestCampaignSync(campaignId, reason) });
  await instance.registration.ensure(world.campaignId);
  const webhook = world.patreon.webhooks().find((w) => w.uri === instance!.webhookUrl)!;
  world.patreon.pauseWebhook(webhook.id);

  expect(await instance.registration.ensure(world.campaignId)).toMatchObject({ healed: true });
  // The job starts at once after its durable write, outside anything idle() tracks: wait for its row.
  for (let i = 0; i < 500 && !(await jobRows(world)).some((j) => j.status === 'done'); i++) await new Promise((r) => setTimeout(r, 10));
  expect(await jobRows(world)).toMatchObject([
    { kind: CAMPAIGN_SYNC_JOB, status: 'done', dedupe_key: `${CAMPAIGN_SYNC_JOB}:${world.campaignId}` },
  ]);
  expect(await syncRuns.all()).toMatchObject([{ trigger: 'webhook-heal', campaignId: world.campaignId, status: 'ok' }]);
});

test('a job kind the processor works cannot be registered twice on the shared queue', async () => {
  instance = await startInstance(world);
  expect(() => instance!.jobs.register(MEMBER_RECHECK_JOB, async () => {})).toThrow(MEMBER_RECHECK_JOB);
});
