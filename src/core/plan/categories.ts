/** Plan error categories (seed 004) and whether each may be retried automatically. */
export const planErrorCategories = [
  'transient',
  'validation',
  'configuration',
  'resource',
  'merge_conflict',
  'authentication',
  'provider',
  'internal',
  'unknown',
] as const;
export type PlanErrorCategory = (typeof planErrorCategories)[number];

export const retriableCategories: Readonly<Record<PlanErrorCategory, boolean>> = {
  transient: true,
  validation: true,
  configuration: false,
  resource: false,
  merge_conflict: true,
  authentication: false,
  provider: true,
  internal: false,
  unknown: false,
};
