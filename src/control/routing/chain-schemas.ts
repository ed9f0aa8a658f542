import { Type, type Static } from '@sinclair/typebox';
import { MAX_STEPS, type ChainRoute } from './chain-rules.js';

// The wire shapes chains and collections share.

/** A step as sent; checked by checkSteps, so the router's schema only documents it. */
export const StepsField = Type.Unknown({
  description: `1-${MAX_STEPS} steps, each {"model"?: a catalog model of the same kind (absent: the chain's own), "provider"?: the one provider to use for it}`,
});

export const StepView = Type.Object({ model: Type.String(), provider: Type.Union([Type.String(), Type.Null()]) });

export const ExpandedRoutes = Type.Array(Type.Object({
  provider: Type.String(), model: Type.String(), upstream_model: Type.String(),
  configured: Type.Boolean({ description: 'usable on this gateway now; routes that are not are skipped' }),
}), { description: 'what the steps expand to, in the order requests try them' });

export function routesView(routes: readonly ChainRoute[]): Static<typeof ExpandedRoutes> {
  return routes.map((r) => ({ provider: r.provider, model: r.model, upstream_model: r.upstreamModel, configured: r.configured }));
}
