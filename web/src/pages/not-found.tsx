import { Page } from '../components/page';

export function NotFound() {
  return (
    <Page title="Page not found">
      <p>There is no page at <code>{location.pathname}</code>. <a href="/">Go to the overview</a>.</p>
    </Page>
  );
}
