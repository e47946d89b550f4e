/**
 * classifyDatabaseError(): which database errors are a passing fault (503 + retry-after)
 * and which stay bugs (500), for every code and message it knows.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import pg from 'pg';
import { AcquireTimeoutError, classifyDatabaseError, type DatabaseFault } from '../../src/db/errors.ts';

const withCode = (code: string, message = 'x') => Object.assign(new Error(message), { code });

describe('classifyDatabaseError', () => {
  const cases: Array<[string, unknown, DatabaseFault | undefined]> = [
    // Connection lost or refused.
    ['ECONNREFUSED', withCode('ECONNREFUSED', 'connect ECONNREFUSED 127.0.0.1:5432'), 'unavailable'],
    ['ECONNRESET', withCode('ECONNRESET', 'read ECONNRESET'), 'unavailable'],
    ['EPIPE', withCode('EPIPE', 'write EPIPE'), 'unavailable'],
    ['ETIMEDOUT', withCode('ETIMEDOUT'), 'unavailable'],
    ['"Connection terminated unexpectedly"', new Error('Connection terminated unexpectedly'), 'unavailable'],
    ['"Connection terminated"', new Error('Connection terminated'), 'unavailable'],
    [
      '"Connection terminated due to connection timeout"',
      new Error('Connection terminated due to connection timeout'),
      'unavailable',
    ],
    [
      'a client not queryable after a connection error',
      new Error('Client has encountered a connection error and is not queryable'),
      'unavailable',
    ],
    ['08000 connection_exception', withCode('08000'), 'unavailable'],
    ['08003 connection_does_not_exist', withCode('08003'), 'unavailable'],
    ['08006 connection_failure', withCode('08006'), 'unavailable'],
    ['08P01 protocol_violation', withCode('08P01'), 'unavailable'],
    ['57P01 admin_shutdown', withCode('57P01', 'terminating connection due to administrator command'), 'unavailable'],
    ['57P02 crash_shutdown', withCode('57P02'), 'unavailable'],
    ['57P03 cannot_connect_now', withCode('57P03', 'the database system is starting up'), 'unavailable'],
    ['53300 too_many_connections', withCode('53300'), 'unavailable'],
    [
      'AggregateError of ECONNREFUSED (several addresses)',
      new AggregateError([withCode('ECONNREFUSED'), withCode('ECONNREFUSED')]),
      'unavailable',
    ],
    ['a cause chain', new Error('wrapped', { cause: withCode('57P01') }), 'unavailable'],
    // Too slow.
    ['57014 statement timeout', withCode('57014', 'canceling statement due to statement timeout'), 'overloaded'],
    ['pg pool acquire timeout', new Error('timeout exceeded when trying to connect'), 'overloaded'],
    ['AcquireTimeoutError (PGlite)', new AcquireTimeoutError(5000), 'overloaded'],
    // A concurrent transaction.
    ['55P03 lock timeout', withCode('55P03', 'canceling statement due to lock timeout'), 'busy'],
    ['40001 serialization failure', withCode('40001'), 'busy'],
    ['40P01 deadlock', withCode('40P01'), 'busy'],
    // Bugs and client errors stay unclassified (500 or their own status).
    ['23505 unique_violation', withCode('23505'), undefined],
    ['42P01 undefined_table', withCode('42P01'), undefined],
    ['22P02 invalid_text_representation', withCode('22P02'), undefined],
    ['a plain Error', new Error('boom'), undefined],
    ['an Error mentioning a timeout elsewhere', new Error('request timeout exceeded'), undefined],
    ['a pool used after end()', new Error('Cannot use a pool after calling end on the pool'), undefined],
    ['a string', 'ECONNREFUSED', undefined],
    ['null', null, undefined],
    ['undefined', undefined, undefined],
  ];
  for (const [name, err, expected] of cases) {
    test(`${name} -> ${expected ?? 'not a database fault'}`, () => {
      assert.equal(classifyDatabaseError(err), expected);
    });
  }

  test('a real pg DatabaseError carries its SQLSTATE in code', () => {
    const err = new pg.DatabaseError('terminating connection due to administrator command', 0, 'error');
    err.code = '57P01';
    assert.equal(classifyDatabaseError(err), 'unavailable');
  });

  test('AcquireTimeoutError reads like the pool timeout and says how long it waited', () => {
    const err = new AcquireTimeoutError(250);
    assert.equal(err.message, 'timeout exceeded when trying to connect (waited 250 ms for a database connection)');
    assert.equal(err.waitedMs, 250);
  });
});
