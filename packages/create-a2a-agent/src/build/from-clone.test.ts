import { fileURLToPath } from 'node:url'
import { expect, it } from 'vitest'
import { scaffolderEnv } from './from-clone.js'

const REPO = fileURLToPath(new URL('../../../../', import.meta.url))

// `npm run create` starts in the clone with its bins on PATH; the app must never lean on them.
it('runs the packed scaffolder without what `npm run` added in the clone, keeping the package manager it names', () => {
  const env = scaffolderEnv({
    PATH: [
      `${REPO}node_modules/.bin`,
      `${REPO}packages/create-a2a-agent/node_modules/.bin`,
      '/usr/lib/node_modules/npm/node_modules/@npmcli/run-script/lib/node-gyp-bin',
      '/usr/local/bin',
      '/usr/bin',
    ].join(':'),
    npm_package_name: 'create-a2a-agent-monorepo',
    npm_lifecycle_event: 'create',
    npm_config_local_prefix: REPO,
    INIT_CWD: '/home/me',
    npm_config_user_agent: 'pnpm/9.12.0 npm/? node/v20.19.0 linux x64',
    npm_config_registry: 'https://registry.example/',
    DATABASE_URL: 'postgresql://me@127.0.0.1/agent',
  })
  expect(env).toEqual({
    PATH: '/usr/local/bin:/usr/bin',
    npm_config_user_agent: 'pnpm/9.12.0 npm/? node/v20.19.0 linux x64',
    npm_config_registry: 'https://registry.example/',
    DATABASE_URL: 'postgresql://me@127.0.0.1/agent',
  })
})
