/**
 * How a command finds the running service that holds the embedded database (one process only may
 * open it): the service listens on the loopback address for `POST /snapshot` and writes where, with
 * a token, into this file of its data folder, readable by its own user only. Whoever can read the
 * file can already copy the database folder; nobody else, and nothing from the network, can ask.
 */
export const SNAPSHOT_ENDPOINT_FILE = 'snapshot-endpoint.json';

export interface SnapshotEndpoint {
  /** The service's process id (it is also in the data folder's lock file). */
  pid: number;
  /** Port on 127.0.0.1. */
  port: number;
  /** Bearer token for `POST /snapshot`. */
  token: string;
}
