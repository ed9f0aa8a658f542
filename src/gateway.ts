import type { Config } from './config/schema.js';
import { policyFromText } from './lib/guardrail-policy.js';
import { loadCatalog } from './catalog/load.js';
import { healthReporter } from './control/health.js';
import { modelLister } from './control/model-list.js';
import { providerLister } from './control/provider-list.js';
import { PriceComparer, pricingRoutes } from './control/price-compare.js';
import { TrafficBook } from './control/traffic-book.js';
import { trafficRoutes } from './control/traffic-routes.js';
import type { UsageSink } from './domain/usage-record.js';
import { routingRoutes } from './control/routing/routing-routes.js';
import { RoutingService } from './control/routing/routing-service.js';
import { collectionRoutes } from './control/routing/collection-routes.js';
import { CollectionService } from './control/routing/collection-service.js';
import { byokRoutes } from './control/byok/byok-routes.js';
import { ByokService } from './control/byok/byok-service.js';
import { ProxyDispatchers } from './control/proxy-dispatchers.js';
import { endpointRoutes } from './control/endpoints/endpoint-routes.js';
import { EndpointService } from './control/endpoints/endpoint-service.js';
import { monitoringRoutes } from './control/monitoring/monitoring-routes.js';
import { MonitoringService } from './control/monitoring/monitoring-service.js';
import { Monitor } from './monitoring/monitor.js';
import { McpServer } from './mcp/mcp-server.js';
import { GATEWAY_VERSION } from './http/routes.js';
import { loadMasterKey } from './config/master-key.js';
import { Breakers } from './dataplane/breakers.js';
import { AudioService } from './dataplane/audio-service.js';
import { InferenceService } from './dataplane/inference-service.js';
import { MessagesService } from './dataplane/messages-service.js';
import { ResponsesService } from './dataplane/responses-service.js';
import { KeyAuthenticator } from './dataplane/key-auth.js';
import { RoutePlanner } from './dataplane/route-planner.js';
import { RouteStatsBook } from './dataplane/route-stats.js';
import { UpstreamClient } from './dataplane/upstream-client.js';
import { ResponseCacheService } from './dataplane/response-cache/response-cache-service.js';
import { buildRoutes } from './http/routes.js';
import { accountRoutes } from './control/account/account-routes.js';
import { AccountService } from './control/account/account-service.js';
import type { ControlDeps } from './control/control-deps.js';
import { keyRoutes } from './control/keys/key-routes.js';
import { KeyService } from './control/keys/key-service.js';
import { signInRoutes } from './control/sign-in/sign-in-routes.js';
import { SignInService } from './control/sign-in/sign-in-service.js';
import { IdpHttp } from './control/oauth/idp-http.js';
import { signInProviders } from './control/oauth/registry.js';
import { inrToMicros } from './lib/money.js';
import { mailInvitation } from './control/teams/invitation-mail.js';
import { teamRoutes } from './control/teams/team-routes.js';
import { TeamService } from './control/teams/team-service.js';
import { workspaceRoutes } from './control/workspaces/workspace-routes.js';
import { WorkspaceService } from './control/workspaces/workspace-service.js';
import { usageRoutes } from './control/usage/usage-routes.js';
import { UsageService } from './control/usage/usage-service.js';
import { openState } from './state/open-state.js';
import { changeFollower } from './state/change-follower.js';
import { StartRefused } from './state/start-refused.js';
import type { Change } from './cluster/change-bus.js';
import { ListenError, startServer } from './http/server.js';
import { DASHBOARD_DIR, loadDashboard, originOf } from './http/dashboard.js';
import { uwsIsNative } from './http/uws-build.js';
import { systemClock, type Clock } from './lib/clock.js';
import { describeProxies } from './lib/proxy-settings.js';
import { createMailer } from './lib/mailer.js';
import type { Logger } from './lib/logger.js';
import { billingRoutes } from './control/billing/billing-routes.js';
import { PaymentApi } from './control/billing/payment-api.js';
import { PaymentNotices } from './control/billing/payment-notices.js';
import { PaymentReconciler } from './control/billing/payment-reconciler.js';
import { BillingService } from './control/billing/billing-service.js';
import { PaymentService } from './control/billing/payment-service.js';
import { paymentWebhookRoutes } from './control/billing/payment-webhook-routes.js';
import { checkoutReturnRoutes } from './control/billing/checkout-return.js';
import { PincodeLookup } from './control/billing/pincode-lookup.js';
import { LowBalanceMailer } from './monitoring/low-balance.js';
import { firstStartSteps } from './first-start.js';
import { publicGate } from './limits/public-gate.js';
import { GatewayMetrics } from './metrics/gateway-metrics.js';
import { countingGate } from './metrics/counting-gate.js';
import { metricsRoute } from './metrics/metrics-route.js';
import { NO_SERVED_METER } from './domain/request-meter.js';
import { OtlpExporter } from './telemetry/otlp-exporter.js';
import { Tracer } from './telemetry/tracer.js';
import { TracedUpstreamClient } from './telemetry/traced-upstream.js';
import { tracedUsage } from './telemetry/traced-usage.js';
import { tracedRoutes } from './telemetry/traced-routes.js';
import { tracedInference } from './telemetry/traced-inference.js';

export { StartRefused };

export interface Gateway {
  port: number;
  /** Graceful stop: refuse new connections, let in-flight requests finish, flush, close. */
  stop(opts?: { timeoutMs?: number }): Promise<void>;
}

function listenRefusal(e: ListenError): string {
  const where = `port ${e.port} on ${e.host}`;
  if (e.code === 'EADDRINUSE') {
    return `${where} is already in use (another gateway or program listens on it); stop it, or give this gateway another port (GW_PORT or port in the config)`;
  }
  if (e.code === 'EADDRNOTAVAIL') return `cannot listen on ${where}: ${e.host} is not an address of this machine (GW_HOST or host in the config)`;
  if (e.code === 'EACCES') return `cannot listen on ${where}: ports below 1024 need privileges; choose a port from 1024 up`;
  return `cannot listen on ${where}${e.code ? ` (${e.code})` : ''}`;
}

export interface GatewayOptions {
  log: Logger;
  clock?: Clock;
}

/**
 * The composition root: opens the store, resolves the catalog, builds the data plane with its
 * lookups and sinks injected, and starts the one HTTP server.
 */
export async function startGateway(config: Readonly<Config>, opts: GatewayOptions): Promise<Gateway> {
  const { log } = opts;
  const clock = opts.clock ?? systemClock;
  // Real time, not `clock`: the serve lock shows operators when this process started, and /health's uptime counts from it.
  const startedAt = Date.now();
  const catalog = loadCatalog(config);
  const state = await openState(config, { clock, log, startedAt });

  const auth = new KeyAuthenticator(state.keyLookup, clock, {
    ...config.keyCache, graceMs: state.keyGraceMs,
    onStoreError: (e) => log.warn('the key store did not answer', { err: String(e) }),
  });
  const breakers = new Breakers(config.breaker);
  const stats = new RouteStatsBook();
  // Traces off (no tracing.otlpUrl): no tracer, and the upstream client, the usage sink and the
  // route table below are the untraced ones, so the request path has no trace check at all.
  const tracer = config.tracing.otlpUrl === undefined ? null : new Tracer(new OtlpExporter({
    url: config.tracing.otlpUrl, serviceName: config.tracing.serviceName, serviceVersion: GATEWAY_VERSION, log,
  }));
  const upstream = tracer === null ? new UpstreamClient(config.upstream) : new TracedUpstreamClient(config.upstream, tracer);
  const usage = state.ledger;
  // Metrics off: no tee, no gate wrapper, no meters; the request path measures nothing.
  const metrics = config.metrics.enabled ? new GatewayMetrics({
    knownModel: (id) => catalog.models.has(id),
    knownProvider: (id) => catalog.providers.has(id),
    breakers: function* () {
      for (const r of catalog.routes.values()) if (r.provider.configured) yield { route: r.id, provider: r.provider.id, state: breakers.state(r.id) };
    },
    ledger: () => ({ pending: usage.pending, spooled: usage.spooled, written: usage.written }),
    upstream: () => upstream.load(),
    ...(tracer === null ? {} : { traces: () => tracer.spans() }),
    version: GATEWAY_VERSION,
  }) : null;
  if (metrics !== null) usage.onWritten = (ms) => metrics.ledgerWritten(ms);
  const gate = metrics === null ? state.gate : countingGate(state.gate, (code) => metrics.refused(code));
  // Public traffic statistics see every record as it is made, and the ledger's last 30 days at start.
  const traffic = new TrafficBook((model) => catalog.models.has(model));
  Promise.resolve(state.traffic.lastId()).then((last) => traffic.load(state.traffic, last, clock.now()))
    .catch((e: unknown) => log.error('traffic statistics could not be rebuilt from the ledger', { err: String(e) }));
  const recorded: UsageSink = metrics === null ? {
    record(r) {
      usage.record(r);
      traffic.add(r);
    },
  } : {
    record(r) {
      usage.record(r);
      traffic.add(r);
      metrics.record(r);
    },
  };
  const sink = tracer === null ? recorded : tracedUsage(recorded, tracer);
  const served = metrics ?? NO_SERVED_METER;
  const planner = new RoutePlanner(catalog, breakers, stats);
  const masterKey = loadMasterKey(config);
  const outbound = new ProxyDispatchers(config.upstream);
  const mailer = createMailer(config.smtp);
  const defaultGuardrails = config.guardrails.default === undefined ? null : policyFromText(config.guardrails.default);
  const inference = new InferenceService({
    auth, gate, planner, breakers, upstream, stats, usage: sink, served, clock, reserveOutputTokens: config.billing.reserveOutputTokens, log,
    promptCacheAuto: config.promptCache.auto,
    guardrails: defaultGuardrails,
  });
  const storedResponses = state.responses;
  Promise.resolve(storedResponses.sweep()).catch((e: unknown) => log.warn('sweeping expired stored responses failed', { err: String(e) }));
  const responses = new ResponsesService({ inference, auth, store: storedResponses, clock, log });
  const audio = new AudioService({ auth, gate, planner, breakers, upstream, stats, usage: sink, served, clock, maxFileBytes: config.audio.maxFileBytes,
    guardrails: defaultGuardrails });

  const payments = config.billing.payments.keyId && config.billing.payments.keySecret
    ? new PaymentApi({ ...config.billing.payments, keyId: config.billing.payments.keyId, keySecret: config.billing.payments.keySecret }, outbound)
    : null;
  // Other processes (the operator CLI, other instances) write to the same database: follow their
  // change feed and money events, so key, budget and credit changes reach the data plane within
  // changePollMs (instances also hear each other at once on the change bus; the poll is the backstop).
  const changes = changeFollower(state, {
    key: (id) => auth.invalidate(id),
    workspace: (id) => state.workspaceChanged(id),
    money: (orgId, eventId, amountMicros) => state.moneyEvent(orgId, eventId, amountMicros),
  }, log, config.changePollMs);
  await changes.start();
  const followChanges = (): void => void changes.poll();

  const publish = (c: Change): void => {
    state.bus?.publish(c).catch((e: unknown) => log.warn('change bus: a change was not published; other instances see it at their next poll', { kind: c.kind, err: String(e) }));
  };
  const control: ControlDeps = {
    config, log, baseUrl: config.baseUrl ?? '', mailer,
    // Each change reaches this instance's data plane now, and the others' through the change bus.
    notify: {
      keyChanged: (id) => {
        auth.invalidate(id);
        publish({ kind: 'key', id, change: 'changed' });
      },
      workspaceChanged: (id) => {
        state.workspaceChanged(id);
        publish({ kind: 'workspace', id });
      },
      chainChanged: (orgId, model, steps) => {
        planner.setChain(orgId, model, steps);
        publish({ kind: 'chain', orgId, model });
      },
      orgKeyChanged: (orgId, provider, saved) => {
        planner.setOrgKey(orgId, provider, saved);
        publish({ kind: 'byok', orgId, provider });
      },
      endpointChanged: (orgId, name, ep) => {
        planner.setEndpoint(orgId, name, ep);
        publish({ kind: 'endpoint', orgId, name });
      },
    },
  };
  // One store of each kind, shared by the services that read it (statements prepared once).
  const stores = state.stores;
  const orgStore = stores.orgs;
  const keyService = new KeyService({
    keys: stores.keys, orgs: orgStore, clock, maxActiveKeys: config.orgs.maxActiveKeysPerOrg,
    keyChanged: (id) => control.notify.keyChanged(id),
  });
  const sessionStore = stores.sessions;
  const teamService = new TeamService({
    members: stores.members, invitations: stores.invitations, orgs: orgStore, sessions: sessionStore, clock,
    caps: config.orgs,
    // control, not a copy: its baseUrl is known only once the server listens.
    invited: (notice) => mailInvitation(control, notice),
  });
  const workspaceService = new WorkspaceService({
    workspaces: stores.workspaces, clock,
    keyChanged: (id) => control.notify.keyChanged(id), workspaceChanged: (id) => control.notify.workspaceChanged(id),
  });
  const baseUrl = () => control.baseUrl;
  const signIn = new SignInService({
    store: stores.signIn, clock, providers: signInProviders(config.auth, new IdpHttp(log, config.upstream)), baseUrl,
    signupCreditMicros: inrToMicros(config.orgs.signupCreditInr), sessionTtlMs: config.auth.sessionTtlHours * 3_600_000,
    loginLinkTtlMs: config.auth.loginLinkTtlMinutes * 60_000,
  });
  const accountService = new AccountService({ users: stores.users, orgs: orgStore, sessions: sessionStore, clock,
    keyChanged: (id) => control.notify.keyChanged(id) });
  const { notify } = control;
  const routing = new RoutingService({ chains: stores.chains, catalog, clock, chainChanged: notify.chainChanged });
  const collectionStore = stores.collections;
  const collections = new CollectionService({ collections: collectionStore, routing, catalog, clock, maxPerOrg: config.orgs.maxCollectionsPerOrg });
  const byok = new ByokService({
    byokKeys: stores.byokKeys, catalog, clock, log, masterKey, outbound, settings: config.byok, orgKeyChanged: notify.orgKeyChanged,
  });
  const endpoints = new EndpointService({
    endpoints: stores.endpoints, clock, log, masterKey, outbound, settings: config.customEndpoints, endpointChanged: notify.endpointChanged,
  });
  // The data plane starts with every saved chain, provider key and endpoint.
  await routing.publishAll();
  await byok.publishAll();
  await endpoints.publishAll();
  // What another instance changes in routing reaches this one's data plane over the change bus.
  const unsubscribeRouting = state.bus?.subscribe((c) => {
    const done = c.kind === 'chain' ? routing.republish(c.orgId, c.model)
      : c.kind === 'byok' ? byok.republish(c.orgId, c.provider)
        : c.kind === 'endpoint' ? endpoints.republish(c.orgId, c.name) : null;
    done?.catch((e: unknown) => log.warn('a change from another instance could not be applied', { kind: c.kind, err: String(e) }));
  });
  // Public routes: a valid key's own window, else the client IP's (spec 8).
  const gatePublic = publicGate(config.limits.publicRpmPerIp, clock, (authorization) => {
    try {
      const key = auth.authenticate(authorization);
      // A key not cached on a remote store: this request counts in its IP's window rather than wait.
      if (key instanceof Promise) {
        key.catch(() => {});
        return null;
      }
      return key.id;
    } catch {
      return null;
    }
  });
  const listModels = modelLister(catalog, (id) => breakers.state(id), clock.now());
  const monitor = new Monitor({ store: state.monitorStore, claimRound: state.claimRound ?? undefined, collections: collectionStore, catalog, upstream, clock, log, config, masterKey, outbound, mailer });
  const rollup = state.dailyUsage;
  const billingStore = stores.billing;
  const lowBalance = new LowBalanceMailer({ billing: billingStore, orgs: orgStore, config, mailer, clock, log, baseUrl: () => control.baseUrl });
  const notices = new PaymentNotices({ billing: billingStore, orgs: orgStore, mailer, log, baseUrl: () => control.baseUrl, moneyChanged: followChanges });
  const paymentService = new PaymentService({ billing: billingStore, orgs: orgStore, api: payments, clock, log, credited: (id) => notices.credited(id) });
  const billingService = new BillingService({
    billing: billingStore, orgs: orgStore, payments: paymentService, usage: rollup, clock, config,
    pincodes: new PincodeLookup(config.billing.pincodeLookupUrl, outbound, config.billing.payments.timeoutMs),
  });
  const reconciler = payments ? new PaymentReconciler({ payments: paymentService, log, everyMs: config.billing.reconcileMs }) : null;
  const mcp = new McpServer({
    inference: tracer === null ? inference : tracedInference(inference, tracer), listModels, keys: keyService, config, log, version: GATEWAY_VERSION,
  });
  const table = buildRoutes({
    inference,
    cache: new ResponseCacheService({
      store: state.responseCache, gate, usage: sink, clock, log, defaultMode: config.responseCache.mode,
      ttlMs: config.responseCache.ttlSeconds * 1000, maxEntryBytes: config.responseCache.maxEntryKb * 1024,
      hitCostPercent: config.responseCache.hitCostPercent,
    }),
    messages: new MessagesService({ inference, auth, planner }),
    audio,
    responses,
    mcp,
    publicBase: () => control.baseUrl,
    maxAudioFileBytes: config.audio.maxFileBytes,
    listModels,
    listProviders: providerLister(catalog, (id) => breakers.state(id)),
    health: healthReporter(catalog, (id) => breakers.state(id), startedAt, () => upstream.load()),
    control: [...accountRoutes(accountService, signIn, baseUrl), ...signInRoutes(signIn, config.auth, baseUrl), ...keyRoutes(keyService),
      ...teamRoutes(teamService), ...workspaceRoutes(workspaceService), ...usageRoutes(new UsageService({ reports: state.usageReports, clock }), log),
      ...routingRoutes(routing), ...collectionRoutes(collections), ...byokRoutes(byok), ...endpointRoutes(endpoints),
      ...monitoringRoutes(new MonitoringService({
        monitoring: stores.monitoring, collections: collectionStore, catalog, clock, masterKey, settings: config.monitoring,
        canMail: mailer !== null, check: (id) => monitor.check(id),
      })),
      ...billingRoutes(billingService, paymentService),
      ...paymentWebhookRoutes(paymentService, (ip) => gatePublic(ip, '')),
      ...checkoutReturnRoutes(),
      ...trafficRoutes({ traffic, hasModel: (id) => catalog.models.has(id), clock }),
      ...pricingRoutes(new PriceComparer(catalog, config, clock, log, outbound)),
      ...(metrics === null ? [] : [metricsRoute({ render: () => metrics.render(), token: config.metrics.token, limitRefused: (ip) => gatePublic(ip, '') })])],
  });
  const routes = tracer === null ? table : tracedRoutes(table, tracer, { captureContent: config.tracing.captureContent });
  const dashboard = config.dashboard.enabled ? loadDashboard(DASHBOARD_DIR, originOf(config.billing.payments.checkoutUrl)) : null;
  if (config.dashboard.enabled && !dashboard) log.warn('the dashboard is not built: `npm run build` makes it (the API serves without it)', { dir: DASHBOARD_DIR });
  const allowedOrigins = new Set<string>();
  /** What a stop, or a start refused at listen, closes: the ledger drains before the database closes and the lock goes. */
  const closeParts = async (): Promise<void> => {
    breakers.shutdown();
    metrics?.stop();
    traffic.stop();
    changes.stop();
    unsubscribeRouting?.();
    await rollup.stop();
    await upstream.close();
    await tracer?.flush();
    await state.close();
  };
  const server = await startServer(routes, {
    host: config.host, port: config.port, bodyLimitBytes: config.bodyLimitBytes, log,
    rejectRepeatedContentLength: config.rejectRepeatedContentLength,
    keys: auth,
    publicGate: gatePublic,
    sessions: (token) => stores.readSession(token, clock.now()),
    allowedOrigins,
    dashboard,
    meters: metrics,
  }).catch(async (e: unknown) => {
    await closeParts();
    if (e instanceof ListenError) throw new StartRefused(listenRefusal(e));
    throw e;
  });
  state.listening(config.host, server.port);
  // The public origin is known only once the port is (port 0 picks one).
  if (!config.baseUrl) {
    const host = config.host === '0.0.0.0' || config.host === '::' ? '127.0.0.1' : config.host;
    control.baseUrl = `http://${host}:${server.port}`;
    allowedOrigins.add(`http://localhost:${server.port}`);
  }
  allowedOrigins.add(control.baseUrl);

  monitor.start();
  rollup.start();
  lowBalance.start();
  reconciler?.start();

  const configured = [...catalog.providers.values()].filter((p) => p.configured).map((p) => p.id);
  const native = uwsIsNative();
  if (!native) log.warn('uWebSockets.js is running its slow JavaScript fallback: its native build does not match this Node.js');
  const proxies = describeProxies(config.upstream);
  if (proxies) log.info('outbound traffic (providers, sign-in, price source) goes through a forward proxy, loopback excepted', proxies);
  log.info('listening', { host: config.host, port: server.port, db: state.where, providers: configured, uws: native ? 'native' : 'fallback',
    connectionsPerOrigin: config.upstream.connectionsPerOrigin, nodeFlags: process.execArgv.join(' ') });
  if (!await state.hasAnyOrg()) {
    const steps = firstStartSteps(config.dbPath, control.baseUrl);
    log.info(steps.message, steps.fields);
  }

  let stopping: Promise<void> | null = null;
  return {
    port: server.port,
    stop: (o = {}) => (stopping ??= (async () => {
      server.stopListening();
      // Elapsed real time: a test's clock may stand still while requests drain.
      const deadline = Date.now() + (o.timeoutMs ?? 30_000);
      while (server.inflight.count > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 5));
      await monitor.stop();
      await lowBalance.stop();
      await reconciler?.stop();
      await closeParts();
    })()),
  };
}
