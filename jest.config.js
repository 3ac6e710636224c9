/** @type {import('jest').Config} */
module.exports = {
  testEnvironment: 'node',
  roots: ['<rootDir>/test'],
  testMatch: ['**/*.test.ts'],
  setupFiles: ['<rootDir>/test/support/jest-env.ts'],
  reporters: ['default', '<rootDir>/test/support/summary-reporter.js'],
  // Middy ships ESM only; swc turns it (and our TypeScript) into CommonJS for jest.
  transform: { '^.+\\.(t|j)s$': ['@swc/jest'] },
  transformIgnorePatterns: ['/node_modules/(?!@middy/)'],
  // client/ is an ESM package whose imports name the .js files tsc will write; here they are .ts.
  moduleNameMapper: { '^(\\.{1,2}/.*)\\.js$': '$1' },
};
