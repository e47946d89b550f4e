# syntax=docker/dockerfile:1
# Marquee's image (docs/deploy.md): the compiled build on Node 20, run as the unprivileged
# `node` user. The build stage compiles src/ to dist/ and makes the embedded database's
# template; the runtime stage gets the production dependencies, dist/ and migrations/ only,
# so no TypeScript, no sources and no dev dependency reach it.

ARG NODE_IMAGE=node:20-bookworm-slim

FROM ${NODE_IMAGE} AS build
WORKDIR /app
# Manifests first: the dependency layer is rebuilt only when they change. The SDK and the
# console are workspaces of the repository; their manifests are enough for npm ci to
# resolve the tree.
COPY package.json package-lock.json ./
COPY packages/sdk/package.json packages/sdk/
COPY packages/console/package.json packages/console/
# --ignore-scripts: `prepare` would build before the sources are here; the build runs below.
RUN npm ci --no-audit --no-fund --ignore-scripts
COPY tsconfig.json tsconfig.build.json ./
COPY scripts ./scripts
COPY src ./src
# The console (Vite) bundles the SDK's sources into dist/console (docs/console.md).
COPY packages/sdk/src packages/sdk/src
COPY packages/console packages/console
RUN node scripts/build.mjs

FROM ${NODE_IMAGE} AS runtime
ENV NODE_ENV=production \
    HOST=0.0.0.0 \
    PORT=3000 \
    DATA_DIR=/var/lib/marquee
WORKDIR /app
COPY package.json package-lock.json ./
COPY packages/sdk/package.json packages/sdk/
COPY packages/console/package.json packages/console/
# Production dependencies only; no lifecycle scripts (the build is copied, never made here).
RUN npm ci --omit=dev --ignore-scripts --no-audit --no-fund \
    && npm cache clean --force \
    && mkdir -p /var/lib/marquee \
    && chown node:node /var/lib/marquee
COPY --from=build /app/dist ./dist
COPY migrations ./migrations
USER node
VOLUME ["/var/lib/marquee"]
EXPOSE 3000 9464
# Ready means the database answers (GET /readyz); node, as the slim image has no curl.
# An API process only: a worker (ROLE=worker) serves no HTTP, compose.yaml checks its metrics port instead.
HEALTHCHECK --interval=10s --timeout=3s --start-period=30s --retries=3 \
    CMD ["node", "-e", "fetch('http://127.0.0.1:' + (process.env.PORT || 3000) + '/readyz').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
# The compiled build itself, not `npm start` (scripts/start.mjs compares sources with the
# build, and there are no sources here); SIGTERM reaches Node directly and drains. The
# flags are npm start's (docs/operations.md, "Memory").
CMD ["node", "--no-allocation-site-pretenuring", "--heap-growing-percent=50", "--v8-pool-size=1", "--wasm-tiering-budget=50000000", "dist/main.js"]
