import { z } from 'zod';
import { classificationClasses, unclassifiedReasons } from './classification.js';
import { hardCodes, nonProviderCodes, scopes, transientCodes } from '../catalogue/codes.js';
import { confidences } from '../catalogue/rule.js';
import { excerptMaxBytes } from '../sanitize/safe-excerpt.js';
import { utf8ByteLength } from '../text/utf8.js';

const isoUtc = z.string().regex(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d{3})?Z$/, 'an ISO-8601 UTC time');
const identifier = z
  .string()
  .regex(/^[A-Za-z0-9][A-Za-z0-9._:/@+-]{0,127}$/)
  .nullable();

/**
 * The wire schema of a classification, with its invariants: `transient`/`hard` carry a provider code of that
 * class and no reason; `unclassified` carries a reason, never a provider class, and names a non-provider code
 * only for `not_provider`.
 */
export const classificationSchema = z
  .object({
    code: z.enum([...transientCodes, ...hardCodes, ...nonProviderCodes]).nullable(),
    class: z.enum(classificationClasses),
    catalogue_version: z.string().min(1),
    confidence: z.enum(confidences),
    scope: z.enum(scopes).nullable(),
    classifier_rule: z
      .string()
      .regex(/^[a-z0-9-]+\.[a-z0-9_]+\.v\d+$/)
      .nullable(),
    provider_id: identifier,
    model_id: identifier,
    phase: identifier,
    occurred_at: isoUtc,
    retry_after: isoUtc.nullable(),
    reset_at: isoUtc.nullable(),
    safe_excerpt: z
      .string()
      .refine((s) => utf8ByteLength(s) <= excerptMaxBytes, `at most ${excerptMaxBytes} bytes`),
    reason: z.enum(unclassifiedReasons).optional(),
    conflicting_rules: z.array(z.string()).optional(),
  })
  .strict()
  .superRefine((c, ctx) => {
    const transient: readonly string[] = transientCodes;
    const hard: readonly string[] = hardCodes;
    if (c.class === 'unclassified') {
      if (c.reason === undefined)
        ctx.addIssue({ code: 'custom', path: ['reason'], message: 'unclassified needs a reason' });
      if (c.code !== null && (transient.includes(c.code) || hard.includes(c.code))) {
        ctx.addIssue({
          code: 'custom',
          path: ['code'],
          message: 'unclassified never carries a provider code',
        });
      }
      if (c.code !== null && c.reason !== 'not_provider') {
        ctx.addIssue({ code: 'custom', path: ['code'], message: 'only not_provider names a code' });
      }
      if (c.retry_after !== null || c.reset_at !== null) {
        ctx.addIssue({ code: 'custom', path: ['retry_after'], message: 'unclassified carries no timing' });
      }
    } else {
      if (c.reason !== undefined)
        ctx.addIssue({ code: 'custom', path: ['reason'], message: 'only unclassified has a reason' });
      const allowed = c.class === 'transient' ? transient : hard;
      if (c.code === null || !allowed.includes(c.code)) {
        ctx.addIssue({ code: 'custom', path: ['code'], message: `code must be a ${c.class} code` });
      }
    }
  });
