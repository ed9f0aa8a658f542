import type { FunctionComponent } from 'preact';
import { Overview } from './pages/overview';
import { Keys } from './pages/keys';
import { Usage } from './pages/usage';
import { Billing } from './pages/billing';
import { Providers } from './pages/providers';
import { Routing } from './pages/routing';
import { Endpoints } from './pages/endpoints';
import { Collections } from './pages/collections';
import { CollectionPage } from './pages/collection';
import { Team } from './pages/team';
import { Playground } from './pages/playground';

export interface PageRoute {
  path: string;
  page: FunctionComponent<{ params: Record<string, string> }>;
  /** In the navigation, with this label; absent for pages reached from another page. */
  nav?: string;
  /** The role a page needs: members do not see a page whose every call would be refused. */
  role?: 'admin' | 'owner';
}

/** Every page of the dashboard, in navigation order. */
export const PAGES: PageRoute[] = [
  { path: '/', page: Overview, nav: 'Overview' },
  { path: '/keys', page: Keys, nav: 'API keys' },
  { path: '/usage', page: Usage, nav: 'Usage' },
  { path: '/billing', page: Billing, nav: 'Billing', role: 'owner' },
  { path: '/providers', page: Providers, nav: 'Provider keys', role: 'owner' },
  { path: '/routing', page: Routing, nav: 'Routing' },
  { path: '/endpoints', page: Endpoints, nav: 'Custom endpoints' },
  { path: '/collections', page: Collections, nav: 'Collections' },
  { path: '/collections/:slug', page: CollectionPage },
  { path: '/team', page: Team, nav: 'Team' },
  { path: '/playground', page: Playground, nav: 'Playground' },
];
