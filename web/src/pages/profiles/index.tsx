import { Placeholder } from '../placeholder.js';

export function ProfilesPage() {
  return <Placeholder title="Profiles" />;
}

export function ProfilePage(props: { readonly id: string }) {
  return <Placeholder title={`Profile ${props.id}`} />;
}
