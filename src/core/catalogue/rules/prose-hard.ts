import { negatedState, toolSubject } from './hard-shapes.js';
import { hedgedCause, notTheProviderAccount, proseCue } from './prose.js';
import type { Rule } from '../rule.js';

/**
 * Round 30: hard failures stated in prose that the shape rules of `hard-shapes.ts` left `unclassified` (safe, but the
 * route then stops for a person instead of moving to the next candidate). Each rule reads what a sentence says is
 * missing or refused and that it is the account, key or model of the model call, not one vendor's wording, and
 * stands down for what the shared vetoes name: a failed action on something else and the tools around the agent
 * (`notTheProviderAccount`, `toolSubject`), prose about an error, a hedge between causes, and a state denied ("has
 * not been suspended"). Each has fixtures (ids r30-…, r30pos-…, r30neg-…) in `catalogue/fixtures/generic.jsonl`.
 */

/** What every rule here leaves alone: a tool's or another service's refusal, text about an error, a denied state. */
const notTheAccountsRefusal = new RegExp(
  `${proseCue.source}|${hedgedCause.source}|${notTheProviderAccount.source}|${toolSubject.source}|${negatedState.source}`,
);

export const proseHardRules: readonly Rule[] = [
  {
    id: 'provider.model_closed_to_region.v1',
    description:
      'One model closed to the caller\'s region or country ("Upstream request failed: [403] This model is not available in your region.", a `RegionError` "This model is not available in your country."): that model\'s unavailability, where a whole-country block of the provider stays a setting',
    tier: 'signature',
    // Above provider.not_configured.v1 (5) and provider.model_access_denied.v1 (6), which read the region as a setting.
    priority: 7,
    code: 'model_unavailable',
    confidence: 'medium',
    when: {
      keywords: ['model', 'models'],
      text: /\b(?:this|the|that|requested|selected) models? (?:is|are) not (?:available|supported|offered|served) (?:in|for|from) your (?:region|country|location|area)\b/,
      unless: notTheAccountsRefusal,
    },
  },
  {
    id: 'provider.account_restricted.v1',
    description:
      'The organisation, account or user behind the key restricted or switched off by the provider ("Organization has been restricted. Please reach out to support", "Your User ID is temporarily suspended"): no retry or other prompt helps until the account is restored',
    tier: 'pattern',
    code: 'auth_required',
    confidence: 'medium',
    when: {
      keywords: ['organization', 'organisation', 'org', 'account', 'user', 'organization_restricted'],
      text: /\b(?:(?:this|your|the) (?:organi[sz]ation|org|account|user(?: id)?)|organi[sz]ation|account)\b[^\n.]{0,20}?\b(?:has been|have been|was|is|are)\s{1,4}(?:temporarily\s{1,4}|permanently\s{1,4})?(?:disabled|restricted|suspended|deactivated|banned|locked)\b|\borganization_restricted\b/,
      // A hosting page's suspended service is the user's own deployment (`local.host_suspended_page.v1`); a billing
      // account is no credential; a feature or setting "disabled for your organization" is a plan or policy.
      unless: new RegExp(
        String.raw`${notTheAccountsRefusal.source}|\bservice (?:has been )?suspended\b|\bbilling account\b|\b(?:feature|setting|option|access|policy|subscription access|telemetry|sharing)\b[^\n.]{0,30}\bdisabled\b`,
      ),
    },
  },
  {
    id: 'provider.model_retired_on_date.v1',
    description:
      'A model retired in the past tense or on a date with a replacement asked for ("This model was deprecated on 2026-05-30. Please use an alternative model", "Gemini 1.0 Pro Vision has been deprecated on July 12, 2024. Consider switching to different model"): the model is gone for this call; a notice that it will be retired is not',
    tier: 'pattern',
    code: 'model_unavailable',
    confidence: 'medium',
    when: {
      keywords: ['deprecated', 'decommissioned', 'retired', 'discontinued'],
      text: /\b(?:this |the )?model\b[^\n]{0,80}?\bwas (?:deprecated|decommissioned|retired|discontinued)\b|\b(?:has been|was) (?:deprecated|decommissioned|retired|discontinued) (?:on|since) [\w ,./-]{4,20}?[.;,]?\s{1,3}(?:please |consider |you (?:should|must|can) )?(?:use|switch(?:ing)? to|migrate to|move to|upgrade to|choose)\b[^\n]{0,40}\b(?:alternative|different|another|newer|replacement|supported) model\b/,
      // A notice ahead of the date ("will be retired", "is deprecated and will reach end-of-life") while the model
      // still answers; a deployment or template refused is the infrastructure's.
      unless: new RegExp(
        String.raw`${notTheAccountsRefusal.source}|\bwill (?:be |reach |no longer )|\bis scheduled\b|\bis deprecated and will\b|\bdeprecation (?:notice|warning)\b`,
      ),
    },
  },
];
