import { Page } from '../components/page';

// Placeholder while the page is being built on its own branch.
export function Endpoints(_p: { params: Record<string, string> }) {
  return <Page title="Endpoints"><p>Coming in this change.</p></Page>;
}
