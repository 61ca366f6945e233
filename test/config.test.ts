import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseConfig, publicUrlWarning, readEnvironment, resolvePublicUrl } from '../src/config';

const minimal = {
  DISCORD_TOKEN: 'bot-token',
  DISCORD_APPLICATION_ID: '123456789012345678',
  PATREON_CLIENT_ID: 'client',
  PATREON_CLIENT_SECRET: 'secret',
  DISCORD_CLIENT_SECRET: 'discord-secret',
};

function problems(env: Record<string, string | undefined>) {
  const result = parseConfig(env);
  if (result.ok) throw new Error('expected a configuration error');
  return result.error;
}

test('an empty environment names every required variable in one message', () => {
  const error = problems({});
  expect(error.problems.map((p) => p.variable)).toEqual([
    'DISCORD_TOKEN',
    'DISCORD_APPLICATION_ID',
    'PATREON_CLIENT_ID',
    'PATREON_CLIENT_SECRET',
    'DISCORD_CLIENT_SECRET',
  ]);
  expect(error.message.split('\n')[0]).toBe('Tierlink cannot start: the configuration has 5 problems.');
});

test('malformed values are named with what they expect, all at once', () => {
  const error = problems({
    ...minimal,
    PORT: 'eighty',
    DISCORD_GUILD_ID: '42',
    PATREON_BASE_URL: 'ftp://example.com',
    SYNC_SCHEDULE: 'every night',
    LOG_LEVEL: 'loud',
    DATABASE_URL: 'mysql://x',
  });
  const byName = Object.fromEntries(error.problems.map((p) => [p.variable, p.message]));
  expect(Object.keys(byName).sort()).toEqual(
    ['DATABASE_URL', 'DISCORD_GUILD_ID', 'LOG_LEVEL', 'PATREON_BASE_URL', 'PORT', 'SYNC_SCHEDULE'].sort(),
  );
  expect(byName.PORT).toContain('port number');
  expect(byName.DISCORD_GUILD_ID).toContain('17–20 digits');
  expect(byName.SYNC_SCHEDULE).toContain('cron');
});

test('a port outside 0–65535 is refused', () => {
  expect(problems({ ...minimal, PORT: '70000' }).problems).toEqual([{ variable: 'PORT', message: expect.stringContaining('0 and 65535') }]);
});

test('DATABASE_URL needs a SECRET_KEY shared by every instance', () => {
  const error = problems({ ...minimal, DATABASE_URL: 'postgres://u:p@db/tierlink' });
  expect(error.problems).toEqual([{ variable: 'SECRET_KEY', message: expect.stringContaining('required with DATABASE_URL') }]);
});

test('defaults follow the contract', () => {
  const result = parseConfig(minimal);
  expect(result.ok && result.value).toMatchObject({
    discord: { apiBaseUrl: 'https://discord.com/api', guildId: undefined },
    patreon: { baseUrl: 'https://www.patreon.com', webhookSecret: undefined },
    port: 3000,
    publicUrl: undefined,
    databaseUrl: undefined,
    dataDir: path.resolve('./data'),
    syncSchedule: '0 4 * * *',
    syncTimezone: 'UTC',
    backups: { dir: undefined, keep: 7, schedule: '30 3 * * *' },
    logLevel: 'info',
  });
  expect(result.ok && resolvePublicUrl(result.value, 3000)).toBe('http://localhost:3000');
});

test('DISCORD_CLIENT_SECRET is required (every page signs people in with Discord); DISCORD_WEB_BASE_URL defaults to discord.com and must be http(s)', () => {
  const { DISCORD_CLIENT_SECRET: _secret, ...withoutSecret } = minimal;
  expect(problems(withoutSecret).problems).toEqual([
    { variable: 'DISCORD_CLIENT_SECRET', message: 'required: the application’s OAuth2 client secret from the Developer Portal → OAuth2' },
  ]);
  expect(problems({ ...minimal, DISCORD_CLIENT_SECRET: '  ' }).problems.map((p) => p.variable)).toEqual(['DISCORD_CLIENT_SECRET']);
  const defaults = parseConfig(minimal);
  expect(defaults.ok && defaults.value.discordOAuth).toEqual({ clientSecret: 'discord-secret', webBaseUrl: 'https://discord.com' });
  const on = parseConfig({ ...minimal, DISCORD_CLIENT_SECRET: ' s3cret ', DISCORD_WEB_BASE_URL: 'http://127.0.0.1:9000/' });
  expect(on.ok && on.value.discordOAuth).toEqual({ clientSecret: 's3cret', webBaseUrl: 'http://127.0.0.1:9000' });
  expect(problems({ ...minimal, DISCORD_WEB_BASE_URL: 'discord.com' }).problems).toEqual([
    { variable: 'DISCORD_WEB_BASE_URL', message: expect.stringContaining('http(s) URL') },
  ]);
});

test('blank values count as unset and URLs lose their trailing slash', () => {
  const result = parseConfig({ ...minimal, PORT: '', PUBLIC_URL: 'https://tierlink.example.com/', LOG_LEVEL: 'DEBUG' });
  expect(result.ok && [result.value.port, result.value.publicUrl, result.value.logLevel]).toEqual([
    3000,
    'https://tierlink.example.com',
    'debug',
  ]);
});

test('the migrate command needs only the database variables', () => {
  expect(parseConfig({}, 'database-only').ok).toBe(true);
  expect(parseConfig({ DATABASE_URL: 'postgres://x/y' }, 'database-only').ok).toBe(false);
});

test('.env is read beneath the real environment', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tierlink-env-'));
  fs.writeFileSync(path.join(dir, '.env'), 'TIERLINK_TEST_ONLY_A=from-file\nPATH=from-file\n');
  const env = readEnvironment(dir);
  expect(env.TIERLINK_TEST_ONLY_A).toBe('from-file');
  expect(env.PATH).toBe(process.env.PATH);
  fs.rmSync(dir, { recursive: true });
});

test('DISCORD_GUILD_IDS lists the servers the environment tokens may bind, with DISCORD_GUILD_ID; a bad id is named', () => {
  const result = parseConfig({
    ...minimal,
    DISCORD_GUILD_ID: '111111111111111111',
    DISCORD_GUILD_IDS: ' 222222222222222222, ,333333333333333333,222222222222222222',
  });
  expect(result.ok && result.value.discord.bindGuildIds).toEqual(['111111111111111111', '222222222222222222', '333333333333333333']);
  expect(
    parseConfig(minimal).ok && (parseConfig(minimal) as { value: { discord: { bindGuildIds: string[] } } }).value.discord.bindGuildIds,
  ).toEqual([]);
  expect(problems({ ...minimal, DISCORD_GUILD_IDS: '222222222222222222,my-server' }).problems).toEqual([
    { variable: 'DISCORD_GUILD_IDS', message: expect.stringContaining('Discord ids (17–20 digits) separated by commas') },
  ]);
});

test('HEALTH_TOKEN and METRICS_TOKEN must be long enough not to be guessed; SECRET_KEY_PREVIOUS must differ from SECRET_KEY', () => {
  const error = problems({
    ...minimal,
    HEALTH_TOKEN: 'short',
    METRICS_TOKEN: 'has a space in it somewhere',
    SECRET_KEY: 'k'.repeat(40),
    SECRET_KEY_PREVIOUS: 'k'.repeat(40),
  });
  const byName = Object.fromEntries(error.problems.map((p) => [p.variable, p.message]));
  expect(byName.HEALTH_TOKEN).toContain('at least 16 characters');
  expect(byName.METRICS_TOKEN).toContain('without spaces');
  expect(byName.SECRET_KEY_PREVIOUS).toContain('the same as SECRET_KEY');
  expect(problems({ ...minimal, SECRET_KEY_PREVIOUS: 'old' }).problems[0]).toMatchObject({ variable: 'SECRET_KEY_PREVIOUS' });

  const result = parseConfig({
    ...minimal,
    HEALTH_TOKEN: 'h'.repeat(24),
    METRICS_TOKEN: 'm'.repeat(24),
    SECRET_KEY_PREVIOUS: 'p'.repeat(32),
  });
  expect(result.ok && [result.value.healthToken, result.value.metricsToken, result.value.secretKeyPrevious]).toEqual([
    'h'.repeat(24),
    'm'.repeat(24),
    'p'.repeat(32),
  ]);
});

test('TRUST_PROXY takes Express’s trust proxy syntax (loopback by default); anything else is named', () => {
  const parsed = (value: string) => {
    const result = parseConfig({ ...minimal, TRUST_PROXY: value });
    return result.ok ? result.value.trustProxy : null;
  };
  expect(parsed('')).toBe('loopback');
  expect(parsed('loopback, 10.0.0.5, 192.168.0.0/16')).toBe('loopback, 10.0.0.5, 192.168.0.0/16');
  expect(parsed('2')).toBe(2);
  expect(parsed('false')).toBe(false);
  expect(parsed('true')).toBe(true);
  for (const bad of ['everyone', '10.0.0.300', 'loopback; 10.0.0.5']) {
    expect(problems({ ...minimal, TRUST_PROXY: bad }).problems).toEqual([
      { variable: 'TRUST_PROXY', message: expect.stringContaining('Express’s `trust proxy` setting') },
    ]);
  }
});

test('a plain-http PUBLIC_URL that is not loopback earns a start-up warning; https and loopback do not', () => {
  expect(publicUrlWarning('http://tierlink.example.com')).toMatch(/^PUBLIC_URL http:\/\/tierlink\.example\.com is plain http/);
  expect(publicUrlWarning('http://203.0.113.9:3000')).not.toBeNull();
  for (const quiet of [
    'https://tierlink.example.com',
    'http://localhost:3000',
    'http://127.0.0.1:3000',
    'http://[::1]:3000',
    'http://app.localhost',
  ]) {
    expect(publicUrlWarning(quiet)).toBeNull();
  }
});

describe('DISCORD_SHARD_COUNT', () => {
  const shardCount = (value: string | undefined) => {
    const result = parseConfig({ ...minimal, DISCORD_SHARD_COUNT: value });
    if (!result.ok) throw result.error;
    return result.value.instances.shardCount;
  };

  test('a whole number of shards is used as the fixed count', () => {
    expect(shardCount('4')).toBe(4);
    expect(shardCount(' 16 ')).toBe(16);
    expect(shardCount('1')).toBe(1);
  });

  test('absent or blank, no count is fixed: the gateway then takes Discord’s recommendation from GET /gateway/bot', () => {
    expect(shardCount(undefined)).toBeUndefined();
    expect(shardCount('')).toBeUndefined();
    expect(shardCount('   ')).toBeUndefined();
    const result = parseConfig(minimal);
    expect(result.ok && result.value.instances.shardCount).toBeUndefined();
  });

  test.each(['0', '-1', '-4', '1.5', '2.0', 'four', '1e3', '0x10', '4 shards', '100001'])(
    '%j is refused with a message naming the variable',
    (value) => {
      const error = problems({ ...minimal, DISCORD_SHARD_COUNT: value });
      expect(error.problems).toEqual([
        { variable: 'DISCORD_SHARD_COUNT', message: 'must be a whole number of gateway shards, from 1 to 100000' },
      ]);
      expect(error.message).toContain('DISCORD_SHARD_COUNT');
    },
  );
});

test('SYNC_TIMEZONE takes an IANA time zone; a zone the runtime does not know is named with examples', () => {
  const berlin = parseConfig({ ...minimal, SYNC_TIMEZONE: ' Europe/Berlin ' });
  expect(berlin.ok && berlin.value.syncTimezone).toBe('Europe/Berlin');
  for (const zone of ['Mars/Olympus_Mons', 'CEST+2', 'GMT+25']) {
    expect(problems({ ...minimal, SYNC_TIMEZONE: zone }).problems).toEqual([
      { variable: 'SYNC_TIMEZONE', message: expect.stringContaining('IANA time zone, e.g. "UTC"') },
    ]);
  }
});

test('BACKUP_DIR turns scheduled backups on (resolved like DATA_DIR); BACKUP_KEEP is a whole number from 1 to 1000', () => {
  const on = parseConfig({ ...minimal, BACKUP_DIR: 'backups', BACKUP_KEEP: '30' });
  expect(on.ok && on.value.backups).toEqual({ dir: path.resolve('backups'), keep: 30, schedule: '30 3 * * *' });
  expect(problems({ ...minimal, BACKUP_SCHEDULE: 'nightly' }).problems).toEqual([
    { variable: 'BACKUP_SCHEDULE', message: expect.stringContaining('cron expression') },
  ]);
  for (const keep of ['0', 'seven', '1001', '-1']) {
    expect(problems({ ...minimal, BACKUP_DIR: 'backups', BACKUP_KEEP: keep }).problems).toEqual([
      { variable: 'BACKUP_KEEP', message: expect.stringContaining('from 1 to 1000') },
    ]);
  }
});
