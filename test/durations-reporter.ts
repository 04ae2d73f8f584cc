import { mkdirSync, writeFileSync } from 'node:fs'
import { dirname, relative } from 'node:path'
import type { Reporter, TestModule } from 'vitest/node'

// Per-file durations, so a test that got slow is seen: written to A2A_TEST_DURATIONS (default
// test-durations.json at the root) and the slowest ten printed after vitest's own summary. It ends with
// the plain "N passed, N failed, N skipped" line that CI reads whatever the runner.
const root = process.cwd()
const outputFile = process.env.A2A_TEST_DURATIONS ?? 'test-durations.json'

interface FileDuration {
  file: string
  project: string
  ms: number
  tests: number
}

export default class DurationsReporter implements Reporter {
  onTestRunEnd(testModules: ReadonlyArray<TestModule>): void {
    const files: FileDuration[] = []
    const counts = { passed: 0, failed: 0, skipped: 0 }
    for (const testModule of testModules) {
      const { duration, collectDuration, setupDuration, prepareDuration } = testModule.diagnostic()
      let tests = 0
      let failed = 0
      for (const test of testModule.children.allTests()) {
        tests += 1
        const state = test.result().state
        if (state === 'passed') counts.passed += 1
        else if (state === 'failed') failed += 1
        else counts.skipped += 1
      }
      // A file or suite that fails outside its tests (a hook, an import) still counts as a failure.
      counts.failed += failed === 0 && testModule.state() === 'failed' ? 1 : failed
      files.push({
        file: relative(root, testModule.moduleId),
        project: testModule.project.name,
        ms: Math.round(duration + collectDuration + setupDuration + prepareDuration),
        tests,
      })
    }
    files.sort((a, b) => b.ms - a.ms)
    mkdirSync(dirname(outputFile), { recursive: true })
    writeFileSync(outputFile, `${JSON.stringify({ files }, null, 2)}\n`)
    if (files.length > 1) {
      console.log(`\nSlowest test files (all ${files.length} in ${outputFile}):`)
      for (const { file, project, ms, tests } of files.slice(0, 10)) {
        console.log(`  ${(ms / 1000).toFixed(1).padStart(7)} s  ${file} [${project}, ${tests} tests]`)
      }
    }
    console.log(`\n${counts.passed} passed, ${counts.failed} failed, ${counts.skipped} skipped`)
  }
}
