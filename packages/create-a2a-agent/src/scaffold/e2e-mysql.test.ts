// End to end, offline, on the MySQL/MariaDB server at A2A_TEST_MYSQL_URL: scaffold a MySQL app
// inside this repository (so Node resolves the local runtime and CLI from the root node_modules)
// with the scaffolder's own steps, which create its database; run the app's type-check and tests
// (each test file on a throwaway database of its own); change the schema with `npm run db:change`;
// start it and store a note through A2A.
import { execFile } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { describe, expect, it } from 'vitest'
import { mysqlConnection, mysqlServer as server } from '../../../../test/mysql-server.js'
import { addColourWithDbChange, checkApp, devTokens, scaffoldApp, scaffoldRoot, sendMessage, startApp, userEnv } from './e2e-support.js'

const root = scaffoldRoot()

async function serverQuery(sql: string, params?: unknown[]): Promise<Record<string, unknown>[]> {
  const admin = await mysqlConnection()
  try {
    return (await admin.query(sql, params)) as Record<string, unknown>[]
  } finally {
    await admin.end()
  }
}

describe('a scaffolded MySQL app', () => {
  it('creates its database, passes its own tests, migrates a schema change with db:change and stores notes', { timeout: 300_000 }, async () => {
    const database = new URL(server)
    database.pathname = `/e2e_my_agent_${process.pid}_${Date.now().toString(36)}`
    const name = database.pathname.slice(1)
    const stepEnv = { DATABASE_URL: database.href }
    try {
      const { app, sql, output } = await scaffoldApp(root, 'my-agent', ['--database', 'mysql'], 'mysql', stepEnv)
      const file = (path: string) => join(app, path)
      expect(output).toContain('(mysql, example notes entity)')
      expect(readFileSync(file('.env'), 'utf8')).toContain(`DATABASE_URL=${database.href}\n`)
      expect(readFileSync(file('.env.example'), 'utf8')).toContain('DATABASE_URL=mysql://root@localhost:3306/my_agent\n')
      expect(sql).toContain('CREATE TABLE `Note`')
      expect(sql).toContain('ALTER TABLE `Note` ADD CONSTRAINT `Note_userId_fkey` FOREIGN KEY (`userId`) REFERENCES `User`(`id`)')
      const pkg = JSON.parse(readFileSync(file('package.json'), 'utf8'))
      expect(pkg.dependencies['@prisma/adapter-mariadb']).toBe('6.19.3')
      expect(pkg.scripts['db:migrate']).toBe('a2a migrate deploy')
      // The scaffolder made the database, applied the first migration and seeded the dev users.
      const users = await serverQuery(`SELECT id FROM \`${name}\`.\`User\` ORDER BY id`)
      expect(users.map((row) => row.id)).toEqual(['alice', 'bob'])

      const { tests } = await checkApp(app, stepEnv)
      expect(tests).toMatch(/Test Files +\d+ passed/)

      const { sql: change } = await addColourWithDbChange(app)
      expect(change).toBe('-- AlterTable\nALTER TABLE `Note` ADD COLUMN `colour` VARCHAR(191) NULL;')
      expect(readFileSync(file('src/a2a/notes.gen.ts'), 'utf8')).toContain('colour')
      const again = await promisify(execFile)('npx', ['a2a', 'migrate', 'dev'], { cwd: app, env: userEnv() })
      expect(again.stdout).toContain('Already in sync')

      const running = await startApp(app, 'start')
      try {
        const create = { data: { skill: 'entity.notes', operation: 'create', arguments: { title: 'Sky', colour: 'blue' } } }
        const { status, body } = await sendMessage(running.url, devTokens(app).alice!, create)
        expect(status).toBe(200)
        expect(body.result.task.status.state).toBe('TASK_STATE_COMPLETED')
        expect(body.result.task.artifacts[0].parts[0].data).toMatchObject({ title: 'Sky', colour: 'blue', userId: 'alice' })
      } finally {
        await running.stop()
      }
      expect(await serverQuery(`SELECT title, colour FROM \`${name}\`.\`Note\``)).toEqual([{ title: 'Sky', colour: 'blue' }])
      expect(await serverQuery(`SELECT COUNT(*) AS n FROM \`${name}\`.\`A2ATask\``)).toEqual([{ n: 1n }])
    } finally {
      await serverQuery(`DROP DATABASE IF EXISTS \`${name}\``)
    }
  })
})
