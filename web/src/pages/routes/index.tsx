import { Placeholder } from '../placeholder.js';

export function RoutesPage() {
  return <Placeholder title="Routes" />;
}

export function RoutePage(props: { readonly id: string }) {
  return <Placeholder title={`Route ${props.id}`} />;
}
