/**
 * An autocannon run in its own process, so the load generator's CPU does not delay the probes the test makes
 * meanwhile. Usage: node flood-child.js '{"url":…,"key":…,"connections":…,"overallRate":…,"duration":…}'.
 * Each request is an /embed of 16 names not seen before; prints autocannon's result as JSON on stdout.
 */
import autocannon from 'autocannon';

const opts = JSON.parse(process.argv[2]!) as { url: string; key: string; connections: number; overallRate?: number; duration: number };
let n = 0;
const body = (): string => JSON.stringify({ items: Array.from({ length: 16 }, (_, i) => `Flood Dish ${i} No ${process.pid}-${++n}`) });

const result = await autocannon({
  url: opts.url + '/embed',
  connections: opts.connections,
  ...(opts.overallRate ? { overallRate: opts.overallRate } : {}),
  duration: opts.duration,
  timeout: 30,
  requests: [{ method: 'POST', path: '/embed', headers: { 'content-type': 'application/json', 'x-api-key': opts.key }, setupRequest: (req: autocannon.Request) => ({ ...req, body: body() }) }],
});
process.stdout.write(JSON.stringify(result));
