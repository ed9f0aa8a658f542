import { randomBytes } from 'node:crypto';
import { startGateway, type GatewayProcess } from './gateway-process.js';
import { startPostgres, type PostgresServer } from './postgres-server.js';
import { startRedis, type RedisServer } from './redis-server.js';

/** N real gateway processes on one PostgreSQL and one Redis, each on its own port. */
export interface Cluster {
  pg: PostgresServer;
  redis: RedisServer;
  gateways: GatewayProcess[];
  /** The gateways' base URLs, for a round-robin client. */
  urls: string[];
  /** A round-robin picker over the gateways still running. */
  next(): string;
  /** The environment every instance shares (GW_STORE, GW_REDIS, GW_MASTER_KEY). */
  env: Record<string, string>;
  /** One more instance with the same settings. */
  add(config?: Record<string, unknown>): Promise<GatewayProcess>;
  stop(): Promise<void>;
}

/**
 * Starts a real PostgreSQL and Redis on free loopback ports, then `n` gateways on them: the
 * multi-instance mode of docs/scale-out.md, each instance its own process, as on N machines.
 */
export async function startCluster(n: number, config: Record<string, unknown> = {}): Promise<Cluster> {
  const [pg, redis] = await Promise.all([startPostgres(), startRedis()]);
  // Saved provider keys are sealed with it: every instance must have the same one.
  const env = { GW_STORE: pg.url, GW_REDIS: redis.url, GW_MASTER_KEY: randomBytes(32).toString('hex') };
  const gateways: GatewayProcess[] = [];
  const add = async (extra: Record<string, unknown> = {}) => {
    const gw = await startGateway({ ...config, ...extra }, env);
    gateways.push(gw);
    return gw;
  };
  // The first migrates; the others then start together (their migrations find nothing to do).
  await add();
  await Promise.all(Array.from({ length: n - 1 }, () => add()));
  let i = 0;
  const live = () => gateways.filter((g) => g.proc.exitCode === null && g.proc.signalCode === null);
  return {
    pg, redis, gateways, env, add,
    get urls() { return gateways.map((g) => g.url); },
    next() {
      const up = live();
      return up[i++ % up.length].url;
    },
    async stop() {
      await Promise.all(gateways.map((g) => g.cleanup()));
      await redis.stop();
      pg.stop();
    },
  };
}
