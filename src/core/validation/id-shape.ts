/**
 * The shape of every caller-chosen id (routes, profiles, plans, sessions): a letter or digit, then up to 127 of
 * letters, digits and `._:@/-`. One definition, so the engine, the policy validator, the service and the CLI
 * refuse exactly the same ids.
 */
const idShape = /^[A-Za-z0-9][A-Za-z0-9._:@/-]{0,127}$/;

/** Whether `value` has the shape of a caller-chosen id. */
export function hasIdShape(value: unknown): value is string {
  return typeof value === 'string' && idShape.test(value);
}
