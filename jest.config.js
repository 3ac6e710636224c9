const { availableParallelism } = require('node:os');

/** @type {import('jest').Config} */
module.exports = {
  testEnvironment: 'node',
  // jest's default keeps a core for itself: one worker on a 2-core CI machine, the whole suite in series. A test
  // file mostly waits on the stacks, stores, browsers and linters it starts, so each core gets a worker.
  maxWorkers: Math.max(2, availableParallelism()),
  // Files that start services and count their answers (and those marked `@run-alone`) first, one at a time; then
  // the stack's, unit and OpenAPI files side by side (test/support/alone-first-runner.js).
  runner: '<rootDir>/test/support/alone-first-runner.js',
  // How long a test or hook may run before jest calls it hung (jest's default is 5 s). It bounds no behaviour:
  // a test about time measures it and says so. Beside another file, a test gets half the CPU it had in series,
  // and tests that write their fixtures or start a process took more than 5 s that way on a loaded machine.
  testTimeout: 30_000,
  roots: ['<rootDir>/test'],
  testMatch: ['**/*.test.ts'],
  setupFiles: ['<rootDir>/test/support/jest-env.ts'],
  // Every log line of the run is captured (and kept off the terminal); the key-leak reporter checks them all.
  globalSetup: '<rootDir>/test/support/log-capture-global.ts',
  setupFilesAfterEnv: ['<rootDir>/test/support/log-capture-setup.ts'],
  reporters: ['<rootDir>/test/support/key-leak-reporter.js', 'default', '<rootDir>/test/support/summary-reporter.js'],
  // Middy ships ESM only; swc turns it (and our TypeScript) into CommonJS for jest.
  transform: { '^.+\\.(t|j)s$': ['@swc/jest'] },
  transformIgnorePatterns: ['/node_modules/(?!@middy/)'],
  // client/ is an ESM package whose imports name the .js files tsc will write; here they are .ts.
  moduleNameMapper: { '^(\\.{1,2}/.*)\\.js$': '$1' },
};
