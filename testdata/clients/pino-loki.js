// Logs lines with pino through the pino-loki transport to a Loki push URL.
// Usage: LOKI_URL=http://127.0.0.1:PORT LOKI_TOKEN=lw_… LAUNCH=key node pino-loki.js COUNT
// The token goes as the password of HTTP Basic, as Loki clients send it.
// The lines go out in two bursts a second apart, so more than one push
// carries them; closing the transport pushes what is left.
'use strict';
const pino = require('pino');

const count = Number(process.argv[2] || 10);
const transport = pino.transport({
  target: 'pino-loki',
  options: {
    host: process.env.LOKI_URL,
    labels: { launch: process.env.LAUNCH, server: 'vllm' },
    headers: { 'X-Scope-OrgID': 'team-a' },
    basicAuth: { username: 'launchwatch', password: process.env.LOKI_TOKEN },
    batching: { interval: 0.3 },
  },
});
const log = pino(transport);
const half = Math.floor(count / 2);
for (let i = 0; i < half; i++) log.info({ meta: { i } }, `pino line ${i}`);
setTimeout(() => {
  for (let i = half; i < count; i++) log.info({ meta: { i, nested: { a: 1 } } }, `pino line ${i}`);
  transport.end();
}, 1000);
