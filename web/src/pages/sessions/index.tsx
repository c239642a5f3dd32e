import type { Location } from '../../router.js';
import { Placeholder } from '../placeholder.js';

export function SessionsPage() {
  return <Placeholder title="Sessions" />;
}

export function SessionPage(props: { readonly id: string; readonly location: Location }) {
  return <Placeholder title={`Session ${props.id} ${props.location.search.get('task_id') ?? ''}`} />;
}
