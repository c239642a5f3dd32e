import { PlansList } from './plans-list.js';
import { PlanView } from './plan-view.js';

/** `/plans`: plans with their error counts. */
export function PlansPage() {
  return <PlansList />;
}

/** `/plans/ID`: the plan's errors, decision, suggestions and actions. */
export function PlanPage(props: { readonly id: string }) {
  return <PlanView key={props.id} id={props.id} />;
}
