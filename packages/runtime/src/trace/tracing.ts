/**
 * Spans through `@opentelemetry/api` only: the app registers an SDK (`serve()` does from the
 * standard OTEL_* variables) or none, and then every call here is a no-op. Spans are started only
 * while a provider is registered, and the inner ones (a store statement, a push delivery) only
 * under a span that records, so an untraced request allocates nothing for tracing.
 * @module
 */
import { context, propagation, ProxyTracerProvider, ROOT_CONTEXT, SpanKind, SpanStatusCode, trace, type Attributes, type Context, type Span } from '@opentelemetry/api'

export { context, SpanKind, type Context, type Span }

export const tracer = trace.getTracer('@a2a-agent/runtime')

/** The provider the API answers when no SDK registered one. */
const NOOP_PROVIDER = new ProxyTracerProvider().getDelegate()

/** Whether an SDK registered a tracer provider: spans are worth starting. */
export function tracingOn(): boolean {
  const provider = trace.getTracerProvider()
  return !(provider instanceof ProxyTracerProvider) || provider.getDelegate() !== NOOP_PROVIDER
}

/** The span of the active context when it records: a parent worth giving children. */
export function recordingParent(): Span | undefined {
  const span = trace.getActiveSpan()
  return span?.isRecording() ? span : undefined
}

/** The caller's W3C trace context (`traceparent`, `tracestate`) as the registered propagator reads it. */
export function callerContext(headers: Record<string, string | string[] | undefined>): Context {
  return propagation.extract(ROOT_CONTEXT, headers)
}

/** `parent` with `span` active in it. */
export const withSpan = (parent: Context, span: Span): Context => trace.setSpan(parent, span)

/** Adds the active trace context to outgoing `headers` (a push delivery's). */
export function injectTraceContext(headers: Record<string, string | number>): void {
  propagation.inject(context.active(), headers)
}

/** The active W3C trace context as stored with work done later (a push outbox row); null when there is none. */
export function traceCarrier(): Record<string, string> | null {
  const active = context.active()
  // No SDK, no context manager: nothing is active and nothing is allocated.
  if (!trace.getSpanContext(active)) return null
  const carrier: Record<string, string> = {}
  propagation.inject(active, carrier)
  return Object.keys(carrier).length > 0 ? carrier : null
}

/**
 * `work` inside a CONSUMER span continuing the trace context `carrier` stored (see
 * {@link traceCarrier}), active while it runs so its inner spans are its children; just `work`
 * when nothing was stored or no SDK is registered.
 */
export function continuedSpan<T>(name: string, carrier: Record<string, string> | null | undefined, attributes: Attributes, work: () => Promise<T>): Promise<T> {
  if (!carrier || !tracingOn()) return work()
  return context.with(propagation.extract(ROOT_CONTEXT, carrier), () => tracer.startActiveSpan(name, { kind: SpanKind.CONSUMER, attributes }, (span) => settleSpan(span, work())))
}

/** Marks `span` failed with `error`'s name and message (never a stack, never a body). */
export function failSpan(span: Span, error: unknown): void {
  const message = error instanceof Error ? `${error.name}: ${error.message}` : String(error)
  span.setStatus({ code: SpanStatusCode.ERROR, message: message.slice(0, 300) })
}

/**
 * `work` inside a child span of the recording active span, ended when its promise settles; just
 * `work` when nothing records.
 */
export function childSpan<T>(name: string, attributes: Attributes, work: () => Promise<T>, kind = SpanKind.INTERNAL): Promise<T> {
  if (!recordingParent()) return work()
  return tracer.startActiveSpan(name, { kind, attributes }, (span) => settleSpan(span, work()))
}

/** An A2A method's span (`A2A SendMessage`), the active one while `work` runs. */
export function methodSpan<T>(method: string, work: () => Promise<T>): Promise<T> {
  return tracer.startActiveSpan(`A2A ${method}`, { kind: SpanKind.INTERNAL, attributes: { 'rpc.system': 'a2a', 'rpc.method': method } }, (span) => settleSpan(span, work()))
}

/**
 * A skill run's span, child of the span that started the run (its request's method) and active
 * while the handler runs, however long it outlives that request; undefined when nothing records.
 */
export function startRunSpan(skill: string, taskId: string): { span: Span; context: Context } | undefined {
  if (!recordingParent()) return undefined
  const span = tracer.startSpan(`run ${skill}`, { kind: SpanKind.INTERNAL, attributes: { 'a2a.skill': skill, 'a2a.task_id': taskId } })
  return { span, context: trace.setSpan(context.active(), span) }
}

/** Ends `span` when `pending` settles, failed if it rejected; passes the outcome on. */
export function settleSpan<T>(span: Span, pending: Promise<T>): Promise<T> {
  return pending.then(
    (value) => {
      span.end()
      return value
    },
    (error: unknown) => {
      failSpan(span, error)
      span.end()
      throw error
    },
  )
}
