import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { ConfigError, loadConfig, parseDuration } from '../../src/config.ts';

describe('configuration', () => {
  test('defaults are those of the Configuration table of the README', () => {
    const config = loadConfig({});
    assert.deepEqual(config, {
      port: 3000,
      host: '127.0.0.1',
      dataDir: './data',
      dataDirLockWaitMs: 25_000,
      databaseUrl: undefined,
      databaseDirectUrl: undefined,
      databasePoolSize: 10,
      databaseAcquireTimeoutMs: 5_000,
      databaseStatementTimeoutMs: 30_000,
      databaseLockTimeoutMs: 10_000,
      databaseReplicaUrl: undefined,
      databaseReplicaMaxLagMs: 5_000,
      redisUrl: undefined,
      adminToken: undefined,
      role: 'all',
      workerJobs: ['webhooks', 'email', 'purge'],
      smtpUrl: undefined,
      mailFrom: 'Marquee <no-reply@localhost>',
      smtpMaxConnections: 4,
      smtpMaxMessages: 100,
      mailRenderThreads: 1,
      webhookAllowLoopback: false,
      webhookAllowInsecureLoopback: false,
      webhookRetryDelaysMs: [30_000, 120_000, 600_000, 3_600_000, 21_600_000, 86_400_000],
      webhookTimeoutMs: 15_000,
      webhookMaxEndpointsPerOrganizer: 20,
      webhookMaxInFlightPerOrganizer: 16,
      rateLimits: { preauth: 600, read: 300, write: 60, signin_account: 10, signin_ip: 30 },
      sessions: { idleTimeoutMs: 43_200_000, absoluteTimeoutMs: 604_800_000 },
      publicUrl: 'http://127.0.0.1:3000',
      trustProxy: false,
      walletSecretsKey: undefined,
      logLevel: 'info',
      logFormat: 'auto',
      http: {
        requestTimeoutMs: 30_000,
        headersTimeoutMs: 10_000,
        keepAliveTimeoutMs: 5_000,
        idleTimeoutMs: 60_000,
        maxConnections: 10_000,
        maxConnectionsPerIp: 256,
        maxHeaderBytes: 16_384,
      },
      idempotencyLeaseMs: 5_000,
      shutdownDrainPeriodMs: 5_000,
      testHoldIdempotentRequestsMs: undefined,
      metricsPort: undefined,
      metricsHost: '127.0.0.1',
      consoleEnabled: true,
      auditLogRetentionDays: 365,
    });
    assert.ok(Object.isFrozen(config));
  });

  test('the database timeouts read as durations', () => {
    const config = loadConfig({
      DATABASE_ACQUIRE_TIMEOUT: '250ms',
      DATABASE_STATEMENT_TIMEOUT: '2m',
      DATABASE_LOCK_TIMEOUT: '3s',
    });
    assert.equal(config.databaseAcquireTimeoutMs, 250);
    assert.equal(config.databaseStatementTimeoutMs, 120_000);
    assert.equal(config.databaseLockTimeoutMs, 3_000);
  });

  test('DATABASE_REPLICA_URL goes with DATABASE_URL; DATABASE_REPLICA_MAX_LAG reads as a duration', () => {
    const config = loadConfig({
      DATABASE_URL: 'postgres://127.0.0.1:5432/marquee',
      DATABASE_REPLICA_URL: 'postgres://127.0.0.1:5433/marquee',
      DATABASE_REPLICA_MAX_LAG: '300ms',
    });
    assert.equal(config.databaseReplicaUrl, 'postgres://127.0.0.1:5433/marquee');
    assert.equal(config.databaseReplicaMaxLagMs, 300);
  });

  test('SHUTDOWN_DRAIN_PERIOD reads as a duration, zero included', () => {
    assert.equal(loadConfig({ SHUTDOWN_DRAIN_PERIOD: '1s' }).shutdownDrainPeriodMs, 1_000);
    assert.equal(loadConfig({ SHUTDOWN_DRAIN_PERIOD: '0s' }).shutdownDrainPeriodMs, 0);
    assert.equal(loadConfig({ SHUTDOWN_DRAIN_PERIOD: '0ms' }).shutdownDrainPeriodMs, 0);
  });

  test('WORKER_JOBS picks the job kinds a worker runs', () => {
    assert.deepEqual(loadConfig({ WORKER_JOBS: 'webhooks' }).workerJobs, ['webhooks']);
    assert.equal(loadConfig({ LOG_FORMAT: 'json' }).logFormat, 'json');
    assert.throws(
      () => loadConfig({ LOG_FORMAT: 'text' }),
      (err: ConfigError) =>
        err.message === 'Invalid configuration: LOG_FORMAT must be auto, json or pretty, got "text".',
    );
    assert.deepEqual(loadConfig({ WORKER_JOBS: ' email , purge,email' }).workerJobs, ['email', 'purge']);
  });

  test('HTTP_* set the HTTP server bounds; 0 turns the per-address cap off', () => {
    const config = loadConfig({
      HTTP_REQUEST_TIMEOUT: '2s',
      HTTP_HEADERS_TIMEOUT: '2s',
      HTTP_KEEP_ALIVE_TIMEOUT: '500ms',
      HTTP_IDLE_TIMEOUT: '1m',
      HTTP_MAX_CONNECTIONS: '50',
      HTTP_MAX_CONNECTIONS_PER_IP: '0',
      HTTP_MAX_HEADER_SIZE: '8192',
    });
    assert.deepEqual(config.http, {
      requestTimeoutMs: 2_000,
      headersTimeoutMs: 2_000,
      keepAliveTimeoutMs: 500,
      idleTimeoutMs: 60_000,
      maxConnections: 50,
      maxConnectionsPerIp: 0,
      maxHeaderBytes: 8192,
    });
  });

  test('IDEMPOTENCY_LEASE sets the lease; the test hold is honoured only with NODE_ENV=test', () => {
    assert.equal(loadConfig({ IDEMPOTENCY_LEASE: '2s' }).idempotencyLeaseMs, 2_000);
    assert.equal(
      loadConfig({ NODE_ENV: 'test', TEST_HOLD_IDEMPOTENT_REQUESTS: '30s' }).testHoldIdempotentRequestsMs,
      30_000,
    );
    assert.equal(loadConfig({ NODE_ENV: 'test' }).testHoldIdempotentRequestsMs, undefined);
  });

  test('durations', () => {
    assert.equal(parseDuration('50ms'), 50);
    assert.equal(parseDuration('2s'), 2000);
    assert.equal(parseDuration('10m'), 600_000);
    assert.equal(parseDuration('1h'), 3_600_000);
    assert.equal(parseDuration('1.5s'), undefined);
    assert.equal(parseDuration('soon'), undefined);
  });

  const invalid: Array<[Record<string, string>, string]> = [
    [{ PORT: 'abc' }, 'Invalid configuration: PORT must be an integer from 0 to 65535, got "abc".'],
    [
      { DATABASE_POOL_SIZE: '0' },
      'Invalid configuration: DATABASE_POOL_SIZE must be an integer from 1 to 1000, got "0".',
    ],
    [{ PORT: '70000' }, 'Invalid configuration: PORT must be an integer from 0 to 65535, got "70000".'],
    [{ ROLE: 'cron' }, 'Invalid configuration: ROLE must be api, worker or all, got "cron".'],
    [
      { WORKER_JOBS: 'webhooks,mail' },
      'Invalid configuration: WORKER_JOBS must be a comma-separated list of webhooks, email, purge, got "mail".',
    ],
    [
      { DATABASE_URL: 'mysql://x' },
      'Invalid configuration: DATABASE_URL must be a URL starting with postgres:// or postgresql://.',
    ],
    [
      { DATABASE_REPLICA_URL: 'postgres://127.0.0.1:5433/marquee' },
      'Invalid configuration: DATABASE_REPLICA_URL needs DATABASE_URL: it is a replica of that PostgreSQL database.',
    ],
    [
      {
        DATABASE_URL: 'postgres://127.0.0.1/m',
        DATABASE_REPLICA_URL: 'postgres://127.0.0.1:5433/m',
        DATABASE_REPLICA_MAX_LAG: '5',
      },
      'Invalid configuration: DATABASE_REPLICA_MAX_LAG must be a duration like 50ms, 2s, 10m or 1h, got "5".',
    ],
    [{ REDIS_URL: 'not a url' }, 'Invalid configuration: REDIS_URL must be a URL.'],
    [
      { WEBHOOK_ALLOW_LOOPBACK: 'yes' },
      'Invalid configuration: WEBHOOK_ALLOW_LOOPBACK must be true or false, got "yes".',
    ],
    [
      { WEBHOOK_RETRY_DELAYS: '30s,soon' },
      'Invalid configuration: WEBHOOK_RETRY_DELAYS must be a comma-separated list of durations like 30s,2m,10m, got "soon".',
    ],
    [
      { DATA_DIR_LOCK_WAIT: '25' },
      'Invalid configuration: DATA_DIR_LOCK_WAIT must be a duration like 50ms, 2s, 10m or 1h, got "25".',
    ],
    [
      { WEBHOOK_TIMEOUT: '15' },
      'Invalid configuration: WEBHOOK_TIMEOUT must be a duration like 50ms, 2s, 10m or 1h, got "15".',
    ],
    [
      { DATABASE_ACQUIRE_TIMEOUT: '5' },
      'Invalid configuration: DATABASE_ACQUIRE_TIMEOUT must be a duration like 50ms, 2s, 10m or 1h, got "5".',
    ],
    [
      { DATABASE_STATEMENT_TIMEOUT: '0s' },
      'Invalid configuration: DATABASE_STATEMENT_TIMEOUT must be a duration like 50ms, 2s, 10m or 1h, got "0s".',
    ],
    [
      { DATABASE_LOCK_TIMEOUT: 'long' },
      'Invalid configuration: DATABASE_LOCK_TIMEOUT must be a duration like 50ms, 2s, 10m or 1h, got "long".',
    ],
    [
      { RATE_LIMIT_WRITE_PER_MIN: '0' },
      'Invalid configuration: RATE_LIMIT_WRITE_PER_MIN must be an integer from 1 to 10000000, got "0".',
    ],
    [{ TRUST_PROXY: 'maybe' }, 'Invalid configuration: TRUST_PROXY must be true or false, got "maybe".'],
    [
      { LOG_LEVEL: 'loud' },
      'Invalid configuration: LOG_LEVEL must be one of fatal, error, warn, info, debug, trace, silent, got "loud".',
    ],
    [{ ADMIN_TOKEN: 'short' }, 'Invalid configuration: ADMIN_TOKEN must be at least 16 characters.'],
    [{ SMTP_URL: 'http://mail' }, 'Invalid configuration: SMTP_URL must be a URL starting with smtp:// or smtps://.'],
    [
      { HTTP_REQUEST_TIMEOUT: '0s' },
      'Invalid configuration: HTTP_REQUEST_TIMEOUT must be a duration like 50ms, 2s, 10m or 1h, got "0s".',
    ],
    [
      { HTTP_HEADERS_TIMEOUT: '40s' },
      'Invalid configuration: HTTP_HEADERS_TIMEOUT must not be longer than HTTP_REQUEST_TIMEOUT (30000 ms), got 40000 ms.',
    ],
    [
      { HTTP_MAX_CONNECTIONS_PER_IP: '-1' },
      'Invalid configuration: HTTP_MAX_CONNECTIONS_PER_IP must be an integer from 0 to 1000000, got "-1".',
    ],
    [
      { HTTP_MAX_HEADER_SIZE: '100' },
      'Invalid configuration: HTTP_MAX_HEADER_SIZE must be an integer from 1024 to 1048576, got "100".',
    ],
    [{ IDEMPOTENCY_LEASE: '500ms' }, 'Invalid configuration: IDEMPOTENCY_LEASE must be at least 1s, got "500ms".'],
    [
      { SHUTDOWN_DRAIN_PERIOD: '5' },
      'Invalid configuration: SHUTDOWN_DRAIN_PERIOD must be a duration like 50ms, 2s, 10m or 1h, got "5".',
    ],
    [
      { IDEMPOTENCY_LEASE: 'soon' },
      'Invalid configuration: IDEMPOTENCY_LEASE must be a duration like 50ms, 2s, 10m or 1h, got "soon".',
    ],
    [
      { TEST_HOLD_IDEMPOTENT_REQUESTS: '30s' },
      'Invalid configuration: TEST_HOLD_IDEMPOTENT_REQUESTS is a test hook and is refused unless NODE_ENV=test.',
    ],
    [
      { NODE_ENV: 'production', TEST_HOLD_IDEMPOTENT_REQUESTS: '30s' },
      'Invalid configuration: TEST_HOLD_IDEMPOTENT_REQUESTS is a test hook and is refused unless NODE_ENV=test.',
    ],
    [
      { TEST_HOLD_IDEMPOTENT_REQUESTS: 'long', NODE_ENV: 'test' },
      'Invalid configuration: TEST_HOLD_IDEMPOTENT_REQUESTS must be a duration like 50ms, 2s, 10m or 1h, got "long".',
    ],
  ];
  test('every invalid variable is reported at once, one line each', () => {
    assert.throws(
      () => loadConfig({ PORT: 'abc', ROLE: 'cron', WEBHOOK_TIMEOUT: '15' }),
      (err: unknown) =>
        err instanceof ConfigError &&
        err.message ===
          'Invalid configuration:\n' +
            '  ROLE must be api, worker or all, got "cron".\n' +
            '  PORT must be an integer from 0 to 65535, got "abc".\n' +
            '  WEBHOOK_TIMEOUT must be a duration like 50ms, 2s, 10m or 1h, got "15".' &&
        err.problems.map((p) => p.variable).join(',') === 'ROLE,PORT,WEBHOOK_TIMEOUT',
    );
  });

  for (const [env, message] of invalid) {
    test(`rejects ${Object.keys(env)[0]}=${Object.values(env)[0]}`, () => {
      assert.throws(
        () => loadConfig(env),
        (err: unknown) => err instanceof ConfigError && err.message === message,
      );
    });
  }
});
