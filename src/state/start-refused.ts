/** The gateway cannot start as configured (its database is another gateway's, its port is taken…); the message says why. */
export class StartRefused extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'StartRefused';
  }
}
