// Logs lines with pino through the pino-loki transport to a Loki push URL.
// Usage: LOKI_URL=http://127.0.0.1:PORT LOKI_TOKEN=lw_… LAUNCH=key node pino-loki.js FROM TO
// logs "pino line FROM" … "pino line TO-1"; the test runs it twice, so two
// pushes carry the launch's lines. The token goes as the password of HTTP
// Basic, as Loki clients send it.
//
// The transport pushes its buffer when it is closed, and only then (the
// batch interval is longer than the script runs): pino-loki's batch timer
// does not await the push it starts, so a timer push still in flight when
// the worker thread exits is lost, a race of the client that made this test
// flaky. The push on close is awaited before the worker exits.
'use strict';
const pino = require('pino');

const from = Number(process.argv[2] || 0);
const to = Number(process.argv[3] || from + 10);
const transport = pino.transport({
  target: 'pino-loki',
  options: {
    host: process.env.LOKI_URL,
    labels: { launch: process.env.LAUNCH, server: 'vllm' },
    headers: { 'X-Scope-OrgID': 'team-a' },
    basicAuth: { username: 'launchwatch', password: process.env.LOKI_TOKEN },
    batching: { interval: 3600 },
  },
});
const log = pino(transport);
for (let i = from; i < to; i++) {
  // Odd runs nest a second object, which pino-loki sends as structured metadata.
  const meta = from === 0 ? { i } : { i, nested: { a: 1 } };
  log.info({ meta }, `pino line ${i}`);
}
transport.end();
