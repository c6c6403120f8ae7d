import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['src/**/*.test.ts', 'widget/**/*.test.ts', 'console-ui/**/*.test.ts'],
    // Finds or starts PostgreSQL and Redis once, and prints what it used (src/testing/test-services.ts).
    globalSetup: ['src/testing/global-setup.ts'],
    // PostgreSQL-backed suites create their own databases; two cores do not gain from more workers.
    maxWorkers: 2,
    testTimeout: 60_000,
    hookTimeout: 120_000,
    // A poll waits on a server and a browser sharing two cores with another test file; its default
    // second failed a widget test on a loaded CI machine. A poll that passes returns as soon as it does.
    expect: { poll: { timeout: 10_000 } },
  },
});
