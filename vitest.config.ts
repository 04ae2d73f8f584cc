import { availableParallelism } from 'node:os'
import { fileURLToPath } from 'node:url'
import { defaultServerConditions } from 'vite'
import { configDefaults, defineConfig } from 'vitest/config'

// Inside this repository @a2a-agent/runtime resolves to its TypeScript source (the "@a2a-agent/source"
// export condition): tests see an edit at once and need no build. Vitest also passes these conditions
// to its workers' Node (--conditions), which tsx's tsImport of an app's files goes through; "module"
// is left out, as in Vitest's default, since Node would honour it too. Apps run with --root below
// this folder (examples/*, apps scaffolded here) load this file as well.
const conditions = ['@a2a-agent/source', ...defaultServerConditions.filter((condition) => condition !== 'module')]
// Tests also start this repository's code in child processes (the a2a bin, tsx, apps' scripts).
const inherited = process.env.NODE_OPTIONS ?? ''
const NODE_OPTIONS = inherited.includes('--conditions=@a2a-agent/source') ? inherited : `${inherited} --conditions=@a2a-agent/source`.trim()

// End-to-end tests: apps scaffolded and installed, real processes started, killed and restarted,
// replicas on one database. Everything else (units, in-process HTTP, real databases) is the fast part.
const endToEnd = [
  'packages/create-a2a-agent/src/scaffold/e2e*.test.ts',
  'packages/create-a2a-agent/src/build/pack.test.ts',
  'packages/runtime/src/push/outbox/push-outbox.test.ts',
  // An app's process started and signalled; the Prisma CLI migrating a database, three times.
  'packages/runtime/src/serve/serve-process.test.ts',
  'packages/runtime/src/migrate/declared-extensions.test.ts',
  'examples/quickstart/src/agent.test.ts',
  'test/published-packages.test.ts',
  'test/schema-corpus.test.ts',
  'test/generate-check.test.ts',
  'test/invoices-postgresql.test.ts',
  'test/invoices-mysql.test.ts',
  'test/invoices-readme.test.ts',
  'test/readme-example.test.ts',
  'test/replicas/**/*.test.ts',
  '**/*.e2e.test.ts',
]
const everyTest = ['packages/*/src/**/*.test.ts', 'generators/src/**/*.test.ts', 'examples/*/src/**/*.test.ts', 'examples/*/test/**/*.test.ts', 'test/**/*.test.ts']

// The fast part waits on databases, sockets and timers more than it computes: more files at once
// than cores (vitest's default is one fewer than the cores, a single worker on 2). Each file keeps
// its own module state out of the others' way (databases, servers and env variables of its own,
// restored), so files share a worker's loaded modules instead of loading the runtime again per
// file, which took half the part's CPU time. A test file that must change shared state restores it.
const fastPool = { isolate: false, maxWorkers: Math.max(3, availableParallelism() - 1) }

export default defineConfig({
  ssr: { resolve: { conditions } },
  test: {
    testTimeout: 20_000,
    hookTimeout: 20_000,
    // A2A_NESTED_VITEST reaches the apps' own vitest runs that tests start (they load this file too):
    // those keep vitest's plain reporter.
    env: { NODE_OPTIONS, A2A_NESTED_VITEST: '1' },
    // Per-file durations (test-durations.json) and the slowest ten, after vitest's own summary.
    reporters: process.env.A2A_NESTED_VITEST ? ['default'] : ['default', fileURLToPath(new URL('./test/durations-reporter.ts', import.meta.url))],
    projects: [
      { extends: true, test: { name: 'fast', include: everyTest, exclude: [...configDefaults.exclude, ...endToEnd], ...fastPool } },
      // The runtime's HTTP tests once more on a2aRouter/agentsRouter inside Express; the run above
      // mounts with a2aListener, as generated apps do (packages/runtime/src/testing/mount.ts).
      {
        extends: true,
        test: {
          name: 'router-mount',
          include: ['packages/runtime/src/{http,jsonrpc,host,rest,agents,stream}/**/*.test.ts'],
          env: { NODE_OPTIONS, A2A_NESTED_VITEST: '1', A2A_TEST_MOUNT: 'router' },
          ...fastPool,
        },
      },
      // After the fast part (a group of its own), with vitest's default workers: apps install and build there.
      { extends: true, test: { name: 'e2e', include: endToEnd, exclude: configDefaults.exclude, sequence: { groupOrder: 1 } } },
    ],
  },
})
