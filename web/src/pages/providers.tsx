import { Page } from '../components/page';

// Placeholder while the page is being built on its own branch.
export function Providers(_p: { params: Record<string, string> }) {
  return <Page title="Providers"><p>Coming in this change.</p></Page>;
}
