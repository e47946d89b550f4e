/**
 * Reads the PostgreSQL protocol a TCP proxy forwards (./tcp-proxy.ts, its tap), for tests
 * that check what a client sends and in which transaction state the server ran it.
 *
 * A client's messages up to a sync point (a simple Query, or an extended-protocol Sync) are
 * one unit, and the server answers each unit with one ReadyForQuery carrying its
 * transaction status: I (idle), T (in a transaction) or E (in a failed one). So the n-th
 * unit ran in the status of the n-th ReadyForQuery counted from the one that ends the
 * start-up (the first).
 */
import type { ProxyTap } from './tcp-proxy.ts';

interface WireUnit {
  connection: number;
  /** The transaction status the server was in when the unit arrived. */
  status: 'I' | 'T' | 'E';
  /** The SQL texts of the unit: a Query's text, or each Parse's. */
  statements: string[];
  /** The names of the statements the unit's Parse messages prepared ('' is the unnamed one). */
  prepared: string[];
}

interface ConnectionState {
  fromClient: Buffer;
  fromServer: Buffer;
  startedUp: boolean;
  units: { statements: string[]; prepared: string[] }[];
  open: { statements: string[]; prepared: string[] };
  statuses: ('I' | 'T' | 'E')[];
}

export interface WireLog {
  tap: ProxyTap;
  /** Every unit answered so far, per connection in order. */
  units(): WireUnit[];
}

export function createWireLog(): WireLog {
  const connections = new Map<number, ConnectionState>();
  const stateOf = (connection: number): ConnectionState => {
    let state = connections.get(connection);
    if (!state) {
      state = {
        fromClient: Buffer.alloc(0),
        fromServer: Buffer.alloc(0),
        startedUp: false,
        units: [],
        open: { statements: [], prepared: [] },
        statuses: [],
      };
      connections.set(connection, state);
    }
    return state;
  };

  const readClient = (state: ConnectionState) => {
    for (;;) {
      const buffer = state.fromClient;
      if (!state.startedUp) {
        // The start-up message has no type byte: a length, then the protocol and parameters.
        if (buffer.length < 4) return;
        const length = buffer.readInt32BE(0);
        if (buffer.length < length) return;
        state.fromClient = buffer.subarray(length);
        state.startedUp = true;
        continue;
      }
      if (buffer.length < 5) return;
      const type = String.fromCharCode(buffer[0]!);
      const length = buffer.readInt32BE(1);
      if (buffer.length < 1 + length) return;
      const body = buffer.subarray(5, 1 + length);
      state.fromClient = buffer.subarray(1 + length);
      if (type === 'Q') {
        state.open.statements.push(cString(body, 0).text);
        endUnit(state);
      } else if (type === 'P') {
        const name = cString(body, 0);
        state.open.prepared.push(name.text);
        state.open.statements.push(cString(body, name.next).text);
      } else if (type === 'S') {
        endUnit(state);
      }
    }
  };

  const readServer = (state: ConnectionState) => {
    for (;;) {
      const buffer = state.fromServer;
      if (buffer.length < 5) return;
      const length = buffer.readInt32BE(1);
      if (buffer.length < 1 + length) return;
      if (buffer[0] === 'Z'.charCodeAt(0)) state.statuses.push(String.fromCharCode(buffer[5]!) as 'I' | 'T' | 'E');
      state.fromServer = buffer.subarray(1 + length);
    }
  };

  return {
    tap(from, connection, chunk) {
      const state = stateOf(connection);
      if (from === 'client') {
        state.fromClient = Buffer.concat([state.fromClient, chunk]);
        readClient(state);
      } else {
        state.fromServer = Buffer.concat([state.fromServer, chunk]);
        readServer(state);
      }
    },
    units() {
      const all: WireUnit[] = [];
      for (const [connection, state] of connections) {
        // statuses[0] ends the start-up; unit n ran in statuses[n] and is answered by statuses[n + 1].
        const answered = Math.min(state.units.length, state.statuses.length - 1);
        for (let n = 0; n < answered; n++) all.push({ connection, status: state.statuses[n]!, ...state.units[n]! });
      }
      return all;
    },
  };
}

function endUnit(state: ConnectionState): void {
  state.units.push(state.open);
  state.open = { statements: [], prepared: [] };
}

function cString(buffer: Buffer, start: number): { text: string; next: number } {
  const end = buffer.indexOf(0, start);
  return { text: buffer.toString('utf8', start, end), next: end + 1 };
}
