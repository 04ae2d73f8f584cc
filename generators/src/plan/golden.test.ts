import { mkdir, readdir, readFile, rm, writeFile } from 'node:fs/promises'
import { dirname, join, relative, sep } from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import { plan } from './plan.js'

// The fixture app: hand-written inputs plus every file the generator plans for it, committed as
// the goldens. Living in place, the goldens type-check with the repository and their generated
// tests run against the app (see __fixture__/src/db.ts).
const FIXTURE = fileURLToPath(new URL('./__fixture__/', import.meta.url))
const HAND_WRITTEN = ['prisma/schema.prisma', 'src/app.ts', 'src/db.ts', 'src/entities.ts']

describe('the golden fixture app', () => {
  it('plans exactly the committed files, byte for byte (UPDATE_GOLDEN=1 rewrites them)', async () => {
    const { files } = await plan({ appRoot: FIXTURE })
    if (process.env.UPDATE_GOLDEN === '1') {
      const planned = new Set(files.map((file) => file.path))
      for (const stale of (await filesUnder(FIXTURE)).filter((path) => !planned.has(path) && !HAND_WRITTEN.includes(path))) {
        await rm(join(FIXTURE, stale))
      }
      for (const file of files) {
        await mkdir(dirname(join(FIXTURE, file.path)), { recursive: true })
        await writeFile(join(FIXTURE, file.path), file.content)
      }
    }
    for (const file of files) {
      expect(await readFile(join(FIXTURE, file.path), 'utf8').catch(() => '(missing)'), file.path).toBe(file.content)
    }
    expect(await filesUnder(FIXTURE)).toEqual([...files.map((file) => file.path), ...HAND_WRITTEN].sort())
  })

  it('plans the same bytes every time', async () => {
    const [first, second] = [await plan({ appRoot: FIXTURE }), await plan({ appRoot: FIXTURE })]
    expect(second).toEqual(first)
  })
})

async function filesUnder(root: string): Promise<string[]> {
  const entries = await readdir(root, { recursive: true, withFileTypes: true })
  return entries
    .filter((entry) => entry.isFile())
    .map((entry) => relative(root, join(entry.parentPath, entry.name)).split(sep).join('/'))
    .sort()
}
