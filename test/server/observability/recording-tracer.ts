import {
  trace,
  TraceFlags,
  type Context,
  type Link,
  type Span,
  type SpanAttributes,
  type SpanAttributeValue,
  type SpanContext,
  type SpanOptions,
  type SpanStatus,
  type TimeInput,
  type Tracer,
  type TracerProvider,
} from '@opentelemetry/api';

/**
 * A minimal in-memory TracerProvider that records finished spans. Written here rather than installing
 * `@opentelemetry/sdk-trace-base` as a dev dependency: the API lets a host register any object implementing
 * TracerProvider (`trace.setGlobalTracerProvider`), and the tests need nothing more than what a span was told.
 */
export interface RecordedSpan {
  readonly name: string;
  readonly traceId: string;
  readonly spanId: string;
  readonly parentSpanId: string | null;
  readonly attributes: Record<string, SpanAttributeValue>;
  readonly events: string[];
  status: SpanStatus | null;
  readonly startTime: TimeInput | undefined;
  endTime: TimeInput | undefined;
  ended: boolean;
}

let nextId = 1;
const hexId = (length: number) => (nextId++).toString(16).padStart(length, '0');

class RecordingSpan implements Span {
  constructor(
    readonly record: RecordedSpan,
    private readonly onEnd: (span: RecordedSpan) => void,
  ) {}

  spanContext(): SpanContext {
    return { traceId: this.record.traceId, spanId: this.record.spanId, traceFlags: TraceFlags.SAMPLED };
  }
  setAttribute(key: string, value: SpanAttributeValue): this {
    this.record.attributes[key] = value;
    return this;
  }
  setAttributes(attributes: SpanAttributes): this {
    for (const [key, value] of Object.entries(attributes))
      if (value !== undefined) this.setAttribute(key, value);
    return this;
  }
  addEvent(name: string): this {
    this.record.events.push(name);
    return this;
  }
  addLink(_link: Link): this {
    return this;
  }
  addLinks(_links: Link[]): this {
    return this;
  }
  setStatus(status: SpanStatus): this {
    this.record.status = status;
    return this;
  }
  updateName(): this {
    return this;
  }
  end(endTime?: TimeInput): void {
    if (this.record.ended) throw new Error(`span ${this.record.name} ended twice`);
    this.record.ended = true;
    this.record.endTime = endTime;
    this.onEnd(this.record);
  }
  isRecording(): boolean {
    return !this.record.ended;
  }
  recordException(): void {}
}

class RecordingTracer implements Tracer {
  constructor(private readonly provider: RecordingTracerProvider) {}

  startSpan(name: string, options: SpanOptions = {}, context?: Context): Span {
    const parent = context === undefined ? undefined : trace.getSpanContext(context);
    const record: RecordedSpan = {
      name,
      traceId: parent?.traceId ?? hexId(32),
      spanId: hexId(16),
      parentSpanId: parent?.spanId ?? null,
      attributes: {},
      events: [],
      status: null,
      startTime: options.startTime,
      endTime: undefined,
      ended: false,
    };
    const span = new RecordingSpan(record, (r) => this.provider.finished.push(r));
    span.setAttributes(options.attributes ?? {});
    this.provider.started.push(record);
    return span;
  }

  startActiveSpan(): never {
    throw new Error('Recourse does not use active spans');
  }
}

export class RecordingTracerProvider implements TracerProvider {
  readonly started: RecordedSpan[] = [];
  readonly finished: RecordedSpan[] = [];

  getTracer(): Tracer {
    return new RecordingTracer(this);
  }
}
