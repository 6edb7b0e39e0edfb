// The reference for the API-overhead benchmark: a bare Fastify route on 127.0.0.1 answering a fixed JSON body (the
// same bytes as the job the core serves), with no guard, auth, rate limit, database or schema.
import fs from 'node:fs';
import Fastify from 'fastify';

const body = fs.readFileSync(process.env.BARE_BODY_FILE, 'utf8');
const app = Fastify({ logger: false });
app.get('/bare', async (_req, reply) => reply.type('application/json; charset=utf-8').send(body));
await app.listen({ host: '127.0.0.1', port: 0 });
process.stdout.write(`bare listening at http://127.0.0.1:${app.server.address().port}\n`);
process.once('SIGTERM', () => app.close().then(() => process.exit(0)));
