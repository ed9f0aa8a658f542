/**
 * Why one upstream attempt failed in a way that moves on to the next route (connect error,
 * timeout, 5xx, 429, a cut before the first byte). Never sent to a client as such: after the
 * last route it becomes 502 all_routes_failed carrying this message.
 */
export class RouteFailure extends Error {
  readonly status: number;
  readonly code: string;

  constructor(code: string, message: string, status = 502) {
    super(message);
    this.name = 'RouteFailure';
    this.code = code;
    this.status = status;
  }
}
