/**
 * Disk writes that a crash cannot leave half done: write a temp file next to the target, flush it,
 * rename it over the target (atomic on one filesystem). Plus the cleanup of folders that deletions
 * leave empty.
 * @module
 */
import { randomBytes } from 'node:crypto'
import { mkdir, open, rename, rm, rmdir } from 'node:fs/promises'
import { basename, dirname, isAbsolute, join, relative } from 'node:path'

export async function writeFileAtomic(file: string, content: string): Promise<void> {
  const dir = dirname(file)
  await mkdir(dir, { recursive: true })
  // Same folder, so the rename never crosses filesystems; dot-prefixed so editors and globs skip it.
  const temp = join(dir, `.${basename(file)}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`)
  try {
    const handle = await open(temp, 'wx')
    try {
      await handle.writeFile(content, 'utf8')
      await handle.sync()
    } finally {
      await handle.close()
    }
    await rename(temp, file)
  } catch (error) {
    await rm(temp, { force: true })
    throw error
  }
}

/** Removes `file`'s folder and its parents while they are empty, never `root` itself or above it. */
export async function removeEmptyParents(root: string, file: string): Promise<void> {
  for (let dir = dirname(file); isInside(root, dir); dir = dirname(dir)) {
    try {
      await rmdir(dir)
    } catch {
      return // not empty (or already gone): everything above is not empty either
    }
  }
}

function isInside(root: string, dir: string): boolean {
  const rel = relative(root, dir)
  return rel !== '' && !rel.startsWith('..') && !isAbsolute(rel)
}
