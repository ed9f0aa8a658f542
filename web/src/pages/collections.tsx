import { Page } from '../components/page';

// Placeholder while the page is being built on its own branch.
export function Collections(_p: { params: Record<string, string> }) {
  return <Page title="Collections"><p>Coming in this change.</p></Page>;
}
