import { Placeholder } from '../placeholder.js';

export function PlansPage() {
  return <Placeholder title="Plans" />;
}

export function PlanPage(props: { readonly id: string }) {
  return <Placeholder title={`Plan ${props.id}`} />;
}
