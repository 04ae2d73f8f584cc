/**
 * `--packages <folder>`: this project's packages as `npm pack` tarballs (what `npm run create` in a
 * clone makes), copied into the app's vendor/ and depended on as `file:vendor/…`, so the app
 * installs before they are published, and its teammates install the same bytes from its repository.
 * @module
 */
import { copyFile, mkdir, readdir } from 'node:fs/promises'
import { basename, join } from 'node:path'

/** Absolute paths of the two tarballs. */
export interface PackedPackages {
  runtime: string
  cli: string
}

/** The folder a vendored app keeps its tarballs in, relative to the app. */
export const VENDOR = 'vendor'

const TARBALLS = { runtime: /^a2a-agent-runtime-\d.*\.tgz$/, cli: /^create-a2a-agent-\d.*\.tgz$/ }

/** The tarballs in `folder`, or why they cannot be used. */
export async function packedPackages(folder: string): Promise<PackedPackages | string> {
  let names: string[]
  try {
    names = (await readdir(folder)).sort()
  } catch (error) {
    return `cannot read the folder (${(error as Error).message}); give the folder \`npm pack\` wrote the tarballs to`
  }
  const found: Partial<PackedPackages> = {}
  for (const [key, pattern] of Object.entries(TARBALLS) as [keyof PackedPackages, RegExp][]) {
    // Sorted, so the last match is the highest version of a single-digit series; one of each is expected.
    const name = names.filter((entry) => pattern.test(entry)).pop()
    if (!name)
      return `no ${key === 'runtime' ? 'a2a-agent-runtime' : 'create-a2a-agent'}-<version>.tgz in it; run \`npm pack --pack-destination ${folder}\` in packages/${key === 'runtime' ? 'runtime' : 'create-a2a-agent'} (\`npm run create\` in a clone does both)`
    found[key] = join(folder, name)
  }
  return found as PackedPackages
}

/** The dependency specifiers of a vendored app. */
export function vendoredVersions(packages: PackedPackages): { runtime: string; cli: string } {
  return { runtime: `file:${VENDOR}/${basename(packages.runtime)}`, cli: `file:${VENDOR}/${basename(packages.cli)}` }
}

/** Copies the tarballs into `<app>/vendor/`. */
export async function vendorTarballs(packages: PackedPackages, app: string): Promise<void> {
  await mkdir(join(app, VENDOR), { recursive: true })
  for (const tarball of [packages.runtime, packages.cli]) await copyFile(tarball, join(app, VENDOR, basename(tarball)))
}
