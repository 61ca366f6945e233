/**
 * The tests in lanes (jest projects), fastest first. `npm test` runs them all; `npm run test:fast`
 * runs the core and application lanes (pure planner tables, and services on an in-process
 * database), which is where a change to the rules is checked in well under a minute.
 * @type {import('jest').Config}
 */
const shared = {
  testEnvironment: 'node',
  // The tests run the stand-ins from their sources: no build of the sandbox package needed in between.
  moduleNameMapper: {
    '^@tierlink/sandbox$': '<rootDir>/packages/sandbox/src/index.ts',
    '^@tierlink/sandbox/(.*)$': '<rootDir>/packages/sandbox/src/$1',
  },
  transform: {
    // Transpile only, each file alone, with one cache for every lane: types are checked by `tsc --noEmit`
    // (npm run typecheck, CI) over src, test and bench.
    '^.+\\.ts$': '<rootDir>/test/support/typescript-transform.mjs',
    // PGlite loads Node built-ins with import(): see the transform for why not --experimental-vm-modules.
    '/node_modules/@electric-sql/pglite/dist/.+\\.cjs$': '<rootDir>/test/support/dynamic-import-as-require.mjs',
  },
  transformIgnorePatterns: ['/node_modules/(?!@electric-sql/pglite/dist/)'],
};

module.exports = {
  testTimeout: 30000,
  // Three workers on CI's two cores: many system files wait on Discord's real buckets, on processes
  // and on the browser, so a third keeps the cores busy (docs/benchmarks.md, 29 November 2026,
  // 09:30–10:30 UTC: the PGlite pass 871 s → 710 s, the PostgreSQL pass 583 s → 457 s).
  maxWorkers: 3,
  // A worker keeps some of what each test file leaves reachable (about 9 MB a file): over a pass
  // the garbage collector's pauses would slow every test and, near Node's heap limit, stall the
  // worker. A worker past 1 GB is replaced between two files.
  workerIdleMemoryLimit: '1GB',
  // CI names the files still running when a pass stops answering (test/support/running-files-reporter.mjs).
  reporters: process.env.JEST_RUNNING_FILES ? ['default', '<rootDir>/test/support/running-files-reporter.mjs'] : ['default'],
  projects: [
    { ...shared, displayName: 'core', testMatch: ['<rootDir>/test/core/**/*.test.ts', '<rootDir>/test/config.test.ts'] },
    { ...shared, displayName: 'app', testMatch: ['<rootDir>/test/app/**/*.test.ts'] },
    {
      ...shared,
      displayName: 'adapters',
      testMatch: ['<rootDir>/test/edges/**/*.test.ts'],
      testPathIgnorePatterns: ['-visual\\.test\\.ts$'],
    },
    { ...shared, displayName: 'pages', testMatch: ['<rootDir>/test/edges/**/*-visual.test.ts'] },
    {
      ...shared,
      displayName: 'system',
      testMatch: ['<rootDir>/test/{e2e,security,cli}/**/*.test.ts'],
    },
    // The built product from an empty environment (the demo, an installed release): always on its
    // embedded database, whatever DATABASE_URL the suite runs with.
    { ...shared, displayName: 'release', testMatch: ['<rootDir>/test/{demo,release}/**/*.test.ts'] },
    { ...shared, displayName: 'sandbox', testMatch: ['<rootDir>/packages/sandbox/test/**/*.test.ts'] },
  ],
};
