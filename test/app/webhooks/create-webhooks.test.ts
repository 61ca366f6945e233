import { MEMBER_RECHECK_JOB } from '../../../src/app/webhooks/member-refresh';
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

test('a paused webhook queues the caller’s own job on the subsystem’s queue, which works it with the caller’s handler', async () => {
  const ran: Array<Record<string, unknown>> = [];
  instance = await startInstance(world, {
    jobHandlers: {
      'campaign-sync': async (payload) => {
        ran.push(payload);
      },
    },
    requestCampaignSync: async (campaignId, reason, jobs) => {
      await jobs.enqueue('campaign-sync', { campaignId, reason }, { dedupeKey: `campaign-sync:${campaignId}` });
    },
  });
  await instance.registration.ensure(world.campaignId);
  const webhook = world.patreon.webhooks().find((w) => w.uri === instance!.webhookUrl)!;
  world.patreon.pauseWebhook(webhook.id);

  expect(await instance.registration.ensure(world.campaignId)).toMatchObject({ healed: true });
  // The job starts at once after its durable write, outside anything idle() tracks: wait for its row.
  for (let i = 0; i < 500 && !(await jobRows(world)).some((j) => j.status === 'done'); i++) await new Promise((r) => setTimeout(r, 10));
  expect(ran).toEqual([{ campaignId: world.campaignId, reason: expect.any(String) }]);
  expect(await jobRows(world)).toMatchObject([{ kind: 'campaign-sync', status: 'done', dedupe_key: `campaign-sync:${world.campaignId}` }]);
  expect(instance.syncRequests).toEqual([]);
});

test('a job kind of the caller that the processor already works is refused at build time', async () => {
  await expect(startInstance(world, { jobHandlers: { [MEMBER_RECHECK_JOB]: async () => {} } })).rejects.toThrow(MEMBER_RECHECK_JOB);
});
