/** @type {import('jest').Config} */
module.exports = {
  testEnvironment: 'node',
  roots: ['<rootDir>/test', '<rootDir>/packages/sandbox/test'],
  testMatch: ['**/*.test.ts'],
  // The tests run the stand-ins from their sources: no build of the sandbox package needed in between.
  moduleNameMapper: {
    '^@tierlink/sandbox$': '<rootDir>/packages/sandbox/src/index.ts',
    '^@tierlink/sandbox/(.*)$': '<rootDir>/packages/sandbox/src/$1',
  },
  transform: {
    // Transpile only: types are checked by `tsc --noEmit` (npm run typecheck, CI) over src, test and bench.
    '^.+\\.ts$': ['ts-jest', { diagnostics: false }],
  },
  testTimeout: 30000,
  // PGlite instances and sandbox servers are heavy; two workers match the two cores CI has.
  maxWorkers: 2,
};
