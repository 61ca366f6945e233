import { standInEnvironment } from '@tierlink/sandbox';
import type { DiscordSandbox } from '@tierlink/sandbox/discord';
import type { MembershipServiceSandbox } from '@tierlink/sandbox/membership-service';
import { type Services, type TierlinkOptions, buildServices } from '../../src/compose';
import { parseConfig } from '../../src/config';
import type { Database } from '../../src/edges/outbound/store/database';
import { createMetrics } from '../../src/edges/outbound/observability/metrics';
import { realSleep } from '../../src/shared/clock';
import { silentLogger } from '../../src/shared/logger';
import { tierlinkRestBeside } from './raised-limits';
import { TEST_SECRET_KEY } from './service-fixtures';

/** The stand-ins a service is built over, and why their limits are raised (absent: the real services' limits). */
export interface StandIns {
  patreon: MembershipServiceSandbox;
  discord: DiscordSandbox;
  raisedLimits?: string | undefined;
}

/**
 * One instance of Tierlink's services as the composition root builds them (src/compose.ts), over
 * the stand-ins and an open database, configured as the README says (the stand-ins' environment
 * and the fixtures' SECRET_KEY): the tests that need less than the whole process (no gateway, no
 * web server) exercise the same wiring as `npm start`, with only the overrides a test needs
 * (a manual clock, fixed randomness, quick retries).
 */
export function serviceOver(
  standIns: StandIns,
  database: Database,
  overrides: Partial<Omit<TierlinkOptions, 'config' | 'database'>> = {},
): Services {
  const parsed = parseConfig({ ...standInEnvironment(standIns.patreon, standIns.discord), SECRET_KEY: TEST_SECRET_KEY });
  if (!parsed.ok) throw parsed.error;
  return buildServices(
    {
      config: parsed.value,
      logger: silentLogger,
      sleep: realSleep,
      random: () => 0.5,
      metrics: createMetrics({ defaultMetrics: false }),
      patreonRetry: { baseDelayMs: 5, maxDelayMs: 20 },
      ...overrides,
      discordAccess: { botUserId: standIns.discord.botUserId, ...tierlinkRestBeside(standIns.raisedLimits), ...overrides.discordAccess },
    },
    database,
  );
}
