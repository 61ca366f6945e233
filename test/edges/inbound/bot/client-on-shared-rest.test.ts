import { REST } from '@discordjs/rest';
import { clientOnSharedRest, destroyKeepingSharedRest } from '../../../../src/edges/inbound/bot/discord-bot';
import { pendingTimers, timersStartedBy } from '../../../support/started-timers';

test('a client on the shared REST leaves no timer behind once destroyed, and the shared REST keeps its own', async () => {
  let shared: REST | undefined;
  const sharedTimers = await timersStartedBy(() => (shared = new REST()));
  try {
    // @discordjs/rest's two sweep intervals, hourly and four-hourly.
    expect(pendingTimers(sharedTimers)).toEqual([
      { ms: 14_400_000, repeats: true },
      { ms: 3_600_000, repeats: true },
    ]);
    const clientTimers = await timersStartedBy(async () => {
      const client = clientOnSharedRest({ intents: [] }, shared!);
      expect(client.rest).toBe(shared);
      await destroyKeepingSharedRest(client);
    });
    // discord.js builds a REST in every client's constructor; replaced by the shared one, its
    // sweep intervals would have run (holding all they reach) for the rest of the process.
    expect(pendingTimers(clientTimers)).toEqual([]);
    // Destroying one client never stops what every other client and the role writer share.
    expect(pendingTimers(sharedTimers)).toHaveLength(2);
  } finally {
    shared!.clearHashSweeper();
    shared!.clearHandlerSweeper();
  }
});
