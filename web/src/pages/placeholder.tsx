/** A page that is not built yet says so plainly. */
export function Placeholder(props: { readonly title: string }) {
  return (
    <section>
      <h1>{props.title}</h1>
      <p>This page is being built.</p>
    </section>
  );
}
