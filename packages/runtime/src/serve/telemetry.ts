/**
 * The OpenTelemetry Node SDK, turned on by the standard variables: OTEL_TRACES_EXPORTER (otlp,
 * console, zipkin) or an OTLP endpoint (OTEL_EXPORTER_OTLP_ENDPOINT, …_TRACES_ENDPOINT); the SDK
 * reads the rest (OTEL_SERVICE_NAME, headers, sampler). The SDK is the app's dependency
 * (`@opentelemetry/sdk-node`), loaded only then; the runtime itself speaks only the API.
 * @module
 */

interface NodeSdk {
  start(): void
  shutdown(): Promise<void>
}

const SDK = '@opentelemetry/sdk-node'

/** The started SDK when the variables ask for one, else undefined. */
export async function startTelemetry(env: NodeJS.ProcessEnv, serviceName: string): Promise<NodeSdk | undefined> {
  if (env.OTEL_SDK_DISABLED === 'true') return undefined
  const exporter = env.OTEL_TRACES_EXPORTER?.trim()
  const wanted = exporter ? exporter !== 'none' : Boolean(env.OTEL_EXPORTER_OTLP_ENDPOINT || env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT)
  if (!wanted) return undefined
  let module: { NodeSDK: new (options: { serviceName?: string }) => NodeSdk }
  try {
    module = (await import(SDK)) as typeof module
  } catch (error) {
    throw new Error(`OTEL_* variables ask for traces, but ${SDK} cannot be loaded (${(error as Error).message}); npm install ${SDK}, or unset them`, { cause: error })
  }
  const sdk = new module.NodeSDK(env.OTEL_SERVICE_NAME ? {} : { serviceName })
  sdk.start()
  return sdk
}
