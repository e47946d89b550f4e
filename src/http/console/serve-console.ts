/**
 * The organizer console (docs/console.md): the built Vite app of packages/console, from
 * dist/console, at /app/. Every /app/ path that is not a file is the app's index.html, so
 * a deep link (/app/events/…) opens the screen it names; a missing asset stays a 404.
 * None of these routes is in the OpenAPI document.
 */
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import fastifyStatic from '@fastify/static';
import type { FastifyInstance, FastifyReply } from 'fastify';
import { problem, sendProblem } from '../errors.ts';
import { CONSOLE_SECURITY_HEADERS } from './security-headers.ts';

/** Where `npm ci` / `npm run build` put the app (scripts/build.mjs); src/http and dist/http are both two levels down. */
export const CONSOLE_DIR = fileURLToPath(new URL('../../../dist/console/', import.meta.url));

/** Vite names assets by their content hash: cache them for good; index.html never. */
function cacheHeaders(reply: FastifyReply, path: string): void {
  const hashed = /[\\/]assets[\\/]/.test(path);
  reply.header('cache-control', hashed ? 'public, max-age=31536000, immutable' : 'no-cache');
}

/** A path whose last segment has no dot is a screen of the app, not a file. */
const isScreenPath = (url: string) => !/\.[^/]*$/.test(url.split('?')[0] ?? '');

export async function serveConsole(app: FastifyInstance, dir = CONSOLE_DIR): Promise<boolean> {
  if (!existsSync(`${dir}/index.html`)) return false;
  await app.register(
    async (scope) => {
      scope.addHook('onRequest', async (_request, reply) => {
        reply.headers(CONSOLE_SECURITY_HEADERS);
      });
      await scope.register(fastifyStatic, {
        root: dir,
        // The scope's prefix (/app) is prepended: the files are at /app/….
        prefix: '/',
        schemaHide: true,
        cacheControl: false,
        // dist/console/.built is the build stamp, not a file of the app.
        dotfiles: 'ignore',
        setHeaders: cacheHeaders,
        redirect: true,
      });
      scope.setNotFoundHandler((request, reply) => {
        if ((request.method === 'GET' || request.method === 'HEAD') && isScreenPath(request.url)) {
          reply.header('cache-control', 'no-cache');
          return reply.sendFile('index.html');
        }
        return sendProblem(reply, problem('unknown_endpoint', `No console file at ${request.url.split('?')[0]}.`));
      });
    },
    { prefix: '/app' },
  );
  return true;
}
