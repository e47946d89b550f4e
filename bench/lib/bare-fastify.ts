/**
 * The framework's floor for the reads scenario: Fastify with no plugin, no hook and no
 * schema, in its own process, answering every GET with the same bytes (body and
 * content-type) Marquee answered GET /v1/events/{id} with. What Marquee adds to a read
 * (authentication, rate limits, request ids, the cached detail) is the gap between this
 * and Marquee; what the framework costs is the gap between this and the bare node:http
 * server (./bare-server.ts). argv: <file with the body> <content-type>. Prints
 * "listening <port>".
 */
import { readFileSync } from 'node:fs';
import Fastify from 'fastify';

const body = readFileSync(process.argv[2]!);
const contentType = process.argv[3] ?? 'application/json; charset=utf-8';
const app = Fastify({ logger: false });
app.get('/*', (_request, reply) => {
  reply.header('content-type', contentType).send(body);
});
const address = await app.listen({ port: 0, host: '127.0.0.1' });
process.stdout.write(`listening ${new URL(address).port}\n`);
process.on('SIGTERM', () => void app.close().then(() => process.exit(0)));
