// A stopping gateway that still accepts (--accept-grace): the answers that let a load balancer with
// passive health checks take this replica out before its listener closes (src/server/drain.ts). One
// per gateway: the drain switches it on, the adapter closes every connection after its answer, and
// the pipeline refuses, right after routing, what a balancer retries elsewhere; websocket upgrades
// and reloads are refused alike, whatever their method.
import { GatewayError } from '../errors.js';

/** Methods RFC 9110 calls idempotent: the ones nginx, HAProxy and Envoy retry on another server after a 503. */
const RETRIED_ELSEWHERE = new Set(['GET', 'HEAD', 'OPTIONS', 'TRACE', 'PUT', 'DELETE']);

export class HandOver {
  /** Set once the drain begins: every answer closes its connection from then on. */
  active = false;
  /** Requests refused so far (each has its access line and a debug line; the drain sums them up). */
  refused = 0;

  /**
   * The 503 for a request a balancer retries elsewhere, before anything is forwarded (so a retry cannot
   * send it twice). Its connection closes like every answer's once stopping (the adapter's doing).
   */
  refusal(method: string | undefined): GatewayError | undefined {
    if (!this.active || !RETRIED_ELSEWHERE.has(method ?? '')) return undefined;
    return this.refuse(`a ${method} request`);
  }

  /**
   * The same 503 for what a stopping gateway must not start whatever its method: a websocket upgrade
   * (a connection that would outlive this replica) and a reload (a program it would never serve).
   */
  refusalOf(what: string): GatewayError | undefined {
    return this.active ? this.refuse(what) : undefined;
  }

  private refuse(what: string): GatewayError {
    this.refused++;
    const e = new GatewayError('overloaded', `this gateway is stopping: ${what} is left to another replica (nothing was forwarded); retry`, { 'retry-after': '1' });
    e.quiet = true; // expected while stopping: the drain's summary line counts them
    return e;
  }
}
