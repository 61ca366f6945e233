/** @type {import('jest').Config} */
module.exports = {
  testEnvironment: 'node',
  roots: ['<rootDir>/test'],
  testMatch: ['**/*.test.ts'],
  transform: {
    // Transpile only: types are checked by `tsc --noEmit` (npm run typecheck, CI) over src, test and bench.
    '^.+\\.ts$': ['ts-jest', { diagnostics: false }],
  },
  testTimeout: 30000,
  // PGlite instances and sandbox servers are heavy; two workers match the two cores CI has.
  maxWorkers: 2,
};
