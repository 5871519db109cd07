// Sends hone, with the OpenTelemetry JS SDK and its OTLP/HTTP exporters,
// a chat span under the GenAI semantic conventions and two
// gen_ai.evaluation.result events judging it: one linked by the span's
// context, one by gen_ai.response.id. Usage:
//   node send.mjs HONE_URL proto|json CONVERSATION [TOKEN]
// It prints {"trace_id", "span_id", "failed"} as JSON: failed counts the
// exports the SDK reported as failed.
import { context, trace } from '@opentelemetry/api';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { NodeTracerProvider, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-node';
import { LoggerProvider, SimpleLogRecordProcessor } from '@opentelemetry/sdk-logs';
import { OTLPTraceExporter as ProtoTraces } from '@opentelemetry/exporter-trace-otlp-proto';
import { OTLPTraceExporter as JSONTraces } from '@opentelemetry/exporter-trace-otlp-http';
import { OTLPLogExporter as ProtoLogs } from '@opentelemetry/exporter-logs-otlp-proto';
import { OTLPLogExporter as JSONLogs } from '@opentelemetry/exporter-logs-otlp-http';

const [base, encoding, conversation, token] = process.argv.slice(2);
const headers = token ? { Authorization: `Bearer ${token}` } : {};
const proto = encoding === 'proto';
let failed = 0;

// counted wraps an exporter to count the exports it reports as failed.
function counted(exporter) {
  const exp = exporter.export.bind(exporter);
  exporter.export = (items, done) => exp(items, (result) => {
    if (result.code !== 0) failed++;
    done(result);
  });
  return exporter;
}

const resource = resourceFromAttributes({ 'service.name': 'node-chat-app', 'user.id': 'node-tester' });
const traceExporter = counted(proto ? new ProtoTraces({ url: `${base}/v1/traces`, headers })
  : new JSONTraces({ url: `${base}/v1/traces`, headers }));
const tracer = new NodeTracerProvider({ resource, spanProcessors: [new SimpleSpanProcessor(traceExporter)] });
const logExporter = counted(proto ? new ProtoLogs({ url: `${base}/v1/logs`, headers })
  : new JSONLogs({ url: `${base}/v1/logs`, headers }));
const logs = new LoggerProvider({ resource: resourceFromAttributes({ 'service.name': 'node-evaluator' }),
  processors: [new SimpleLogRecordProcessor({ exporter: logExporter })] });

const responseID = `chatcmpl-${conversation}`;
const span = tracer.getTracer('hone-interop').startSpan('chat gpt-4o-mini', {
  attributes: {
    'gen_ai.operation.name': 'chat',
    'gen_ai.provider.name': 'openai',
    'gen_ai.request.model': 'gpt-4o-mini',
    'gen_ai.response.model': 'gpt-4o-mini-2024-07-18',
    'gen_ai.response.id': responseID,
    'gen_ai.conversation.id': conversation,
    'gen_ai.usage.input_tokens': 21,
    'gen_ai.usage.output_tokens': 7,
    'gen_ai.system_instructions': JSON.stringify([{ type: 'text', content: 'You are ERA, the HR assistant.' }]),
    'gen_ai.input.messages': JSON.stringify([{ role: 'user', parts: [{ type: 'text', content: "My employee didn't show up" }] }]),
    'gen_ai.output.messages': JSON.stringify([{ role: 'assistant', parts: [{ type: 'text', content: 'Call them first.' }], finish_reason: 'stop' }]),
  },
});
await new Promise((r) => setTimeout(r, 20));
span.end();
await tracer.forceFlush().catch(() => failed++);

const logger = logs.getLogger('hone-interop');
logger.emit({
  eventName: 'gen_ai.evaluation.result',
  context: trace.setSpan(context.active(), span),
  attributes: {
    'gen_ai.evaluation.name': 'relevance',
    'gen_ai.evaluation.score.value': 0.9,
    'gen_ai.evaluation.explanation': 'answers the question',
  },
});
logger.emit({
  eventName: 'gen_ai.evaluation.result',
  attributes: {
    'gen_ai.evaluation.name': 'verdict',
    'gen_ai.evaluation.score.label': 'pass',
    'gen_ai.response.id': responseID,
  },
});
await logs.forceFlush().catch(() => failed++);
await tracer.shutdown().catch(() => {});
await logs.shutdown().catch(() => {});
const sc = span.spanContext();
console.log(JSON.stringify({ trace_id: sc.traceId, span_id: sc.spanId, failed }));
