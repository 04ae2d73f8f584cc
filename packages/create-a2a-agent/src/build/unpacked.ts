/**
 * For tests of the packed CLI: its tarball unpacked where npm would install it, beside its
 * dependencies linked from this repository's node_modules (no registry needed to run it).
 * @module
 */
import { execFile } from 'node:child_process'
import { existsSync, mkdirSync, readFileSync, renameSync, symlinkSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'

const REPO_MODULES = fileURLToPath(new URL('../../../../node_modules/', import.meta.url))
// Where npm put a version of its own for this package (another at the root serves something else).
const PACKAGE_MODULES = fileURLToPath(new URL('../../node_modules/', import.meta.url))

/** Unpacks `tarball` into `<folder>/node_modules/create-a2a-agent`; returns that package folder. */
export async function unpackWithDependencies(tarball: string, folder: string): Promise<string> {
  const modules = join(folder, 'node_modules')
  const unpacked = join(modules, 'create-a2a-agent')
  mkdirSync(modules, { recursive: true })
  await promisify(execFile)('tar', ['-xzf', tarball, '-C', folder])
  renameSync(join(folder, 'package'), unpacked)
  const { dependencies } = JSON.parse(readFileSync(join(unpacked, 'package.json'), 'utf8')) as { dependencies: Record<string, string> }
  for (const name of Object.keys(dependencies)) {
    mkdirSync(dirname(join(modules, name)), { recursive: true })
    const own = join(PACKAGE_MODULES, name)
    symlinkSync(existsSync(own) ? own : join(REPO_MODULES, name), join(modules, name))
  }
  return unpacked
}
