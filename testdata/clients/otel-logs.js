// Emits log records with the OpenTelemetry logs SDK and exports them with
// the OTLP/HTTP (JSON) exporter.
// Usage: OTLP_URL=http://127.0.0.1:PORT/v1/logs OTLP_TOKEN=lw_… LAUNCH=key node otel-logs.js COUNT
'use strict';
const { SeverityNumber } = require('@opentelemetry/api-logs');
const { LoggerProvider, BatchLogRecordProcessor } = require('@opentelemetry/sdk-logs');
const { OTLPLogExporter } = require('@opentelemetry/exporter-logs-otlp-http');
const { resourceFromAttributes } = require('@opentelemetry/resources');

const count = Number(process.argv[2] || 10);
const exporter = new OTLPLogExporter({
  url: process.env.OTLP_URL,
  headers: { Authorization: `Bearer ${process.env.OTLP_TOKEN}` },
});
const provider = new LoggerProvider({
  resource: resourceFromAttributes({
    'launchwatch.launch': process.env.LAUNCH,
    'service.name': 'otel-it',
    'host.name': 'gpu-otel',
  }),
  processors: [new BatchLogRecordProcessor({ exporter, scheduledDelayMillis: 200, maxExportBatchSize: 64 })],
});
const logger = provider.getLogger('it', '1.0.0');
for (let i = 0; i < count; i++) {
  logger.emit({
    severityNumber: i % 10 === 9 ? SeverityNumber.WARN : SeverityNumber.INFO,
    severityText: i % 10 === 9 ? 'WARN' : 'INFO',
    body: `otel line ${i}`,
    attributes: { i },
  });
}
provider.shutdown().then(
  () => process.exit(0),
  (err) => { console.error(err); process.exit(1); },
);
