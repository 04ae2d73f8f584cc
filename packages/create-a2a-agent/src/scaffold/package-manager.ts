/**
 * The package manager the scaffolder was started with (`npm create`, `pnpm create`, `yarn create`,
 * `bun create` each set npm_config_user_agent), used for the install and every printed command.
 * @module
 */

export type PackageManager = 'npm' | 'pnpm' | 'yarn' | 'bun'

/** From a user agent like `pnpm/9.12.0 npm/? node/v20.19.0 linux x64`; npm when unknown. */
export function detectPackageManager(userAgent = process.env.npm_config_user_agent ?? ''): PackageManager {
  const name = userAgent.split('/')[0]
  return name === 'pnpm' || name === 'yarn' || name === 'bun' ? name : 'npm'
}

/** The commands a person types with `pm`. */
export function commandsFor(pm: PackageManager) {
  return {
    install: pm === 'yarn' ? 'yarn' : `${pm} install`,
    /** A package.json script, with extra arguments passed on to it. */
    run: (script: string, args = '') => {
      const base = pm === 'npm' || pm === 'bun' ? `${pm} run ${script}` : `${pm} ${script}`
      return args ? `${base}${pm === 'npm' ? ' --' : ''} ${args}` : base
    },
    // `bun test` is bun's own runner, not the script.
    test: pm === 'bun' ? 'bun run test' : `${pm} test`,
    /** A bin of the app's dependencies. */
    exec: (bin: string) => (pm === 'npm' ? `npx ${bin}` : pm === 'pnpm' ? `pnpm exec ${bin}` : pm === 'yarn' ? `yarn ${bin}` : `bunx ${bin}`),
  }
}

export type Commands = ReturnType<typeof commandsFor>

/** The install as the scaffolder runs it: command and arguments. */
export function installArgs(pm: PackageManager): [string, string[]] {
  const command = process.platform === 'win32' ? `${pm}.cmd` : pm
  return pm === 'npm' ? [command, ['install', '--no-audit', '--no-fund']] : [command, ['install']]
}
