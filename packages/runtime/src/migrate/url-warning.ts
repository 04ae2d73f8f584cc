/**
 * P8: with a driver adapter, Prisma 6.19's CLI prints on every command a warning to remove `url`
 * from the schema's datasource. The url must stay: without it the CLI cannot resolve the datasource
 * and downloads native engines. Exactly that warning (naming `url` alone) is left out of stdout.
 * @module
 */

const URL_WARNING =
  '\nWARNING: Your schema specifies the following datasource properties but you are using a Driver Adapter via prisma.config.ts:\n- url\n\nThe values from your schema will NOT be used!\n\nWe recommend you to remove those properties from your schema to avoid confusion if you are only using driver adapters.\n'

const INSTALLED = Symbol.for('@a2a-agent/runtime:url-warning')

export function hideDatasourceUrlWarning(stream: NodeJS.WriteStream & { [INSTALLED]?: true } = process.stdout): void {
  if (stream[INSTALLED]) return
  stream[INSTALLED] = true
  const write = stream.write.bind(stream) as (...args: unknown[]) => boolean
  stream.write = ((chunk: unknown, ...rest: unknown[]) => {
    if (chunk === URL_WARNING) {
      // A callback still learns the write is done.
      const callback = rest.find((arg) => typeof arg === 'function') as (() => void) | undefined
      if (callback) process.nextTick(callback)
      return true
    }
    return write(chunk, ...rest)
  }) as typeof stream.write
}
