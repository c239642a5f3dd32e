import { hedgedCause, notACredential, notTheModelCall, proseCue } from './prose.js';
import type { Rule } from '../rule.js';

/**
 * Hard failures read by the shape of the sentence rather than by one vendor's wording (catalogue 2026.12.06-6). The
 * rounds 7 to 18 of the 2026-12 corpus, replayed on the catalogue just before each round's rules, left 87 hard
 * failures `unclassified`: no rule knew the sentence, although each said the same few things in new words. A
 * credential word with a refusal ("your API key does not have the required permissions", "OAuth token has been
 * revoked"), a model with a gate ("has not activated the model", "model ... does not support tool use"), a setting
 * with an absence ("base url is not set", "no language model configured"), a usage word with an end ("usage limit
 * has been reached") or a plan with a requirement ("requires a ... plan", "free users can only use"). Each rule below
 * reads one such family in the pattern tier: any signature or structured rule that matches the same text outranks it
 * (side channels above all), and only the bare statuses and generic types rank below it.
 *
 * A hard answer on text that is no provider failing a prompt is unsafe, so each family stands down for the same
 * things: a failed action on something other than the model call (`notTheModelCall`), prose about an error
 * (`proseCue`), a hedge between causes (`hedgedCause`), and a subject that is a tool around the agent.
 */

/**
 * The tools around an agent whose own permissions, settings, quotas and plans are worded exactly like a provider's:
 * code hosts and their CLIs, package and container registries, storage and workspace APIs, chat platforms, databases,
 * MCP servers, plugins and extensions, deploy and infrastructure tools, search and scraping APIs. Their name anywhere
 * in the text leaves the shape unread (a safe `unclassified`): the wording alone cannot tell whose refusal it is.
 */
export const toolSubject =
  /\b(?:github|gitlab|bitbucket|git|gh|repo|repos|repository|repositories|npm|npmjs|pypi|pip|docker|ghcr|quay|registry|bucket|s3|blob|storage|drive|gmail|calendar|sheets?|slack|discord|telegram|jira|confluence|notion|linear|database|postgres(?:ql)?|mysql|sqlite|redis|mongo(?:db)?|mcp|plugins?|extensions?|marketplace|kubectl|kubernetes|helm|terraform|vercel|netlify|heroku|firebase|stripe|youtube|maps|places|search|serp(?:api)?|tavily|firecrawl|scrap(?:e|er|ing)|crawl(?:er|ing)?|webhook|smtp|sms|twilio|sentry|telemetry|analytics|disk|inode|filesystem|eacces|eperm)\b/;

/**
 * Creating, deleting or listing something (a model entry on a gateway's admin API, a key, a team) is management, not
 * a prompt: the refusal is the management call's, and another prompt would not meet it.
 */
const managementAction =
  /\b(?:failed to|unable to|could not|couldn.t|cannot|error) (?:create|delete|remove|update|register|list|add|patch|edit)\b/;

/**
 * A state denied, not reported: "has not been exceeded yet", "is not revoked". The same words as the failure, the
 * opposite meaning.
 */
export const negatedState =
  /\b(?:has|have|is|are|was|were)(?:n.t| not| never)\s{1,4}(?:yet\s{1,4})?(?:been\s{1,4})?(?:reached|exceeded|exhausted|used up|depleted|run out|revoked|expired|terminated|disabled|blocked|denied)\b/;

/** What every family leaves alone: text about an error, a hedge, an action on something else, a tool's subject. */
export const notAProviderRefusal = new RegExp(
  `${proseCue.source}|${hedgedCause.source}|${notTheModelCall.source}|${toolSubject.source}|${managementAction.source}|${negatedState.source}`,
);

/** A credential or the principal it stands for: whose refusal the sentence is. */
const credentialSubject = String.raw`(?:api[ _-]?keys?|keys?|(?:oauth |access |refresh |bearer |auth |session )?tokens?|client|account|user(?: id)?|role|credentials?|service account)`;

export const hardShapeRules: readonly Rule[] = [
  {
    id: 'provider.credential_refused.v1',
    description:
      'A credential or its principal refused by shape: it lacks the permission, scope or role, or it was revoked, expired, terminated or used',
    tier: 'pattern',
    code: 'auth_required',
    confidence: 'high',
    when: {
      keywords: [
        'api',
        'key',
        'keys',
        'apikey',
        'token',
        'tokens',
        'caller',
        'client',
        'principal',
        'account',
        'user',
        'role',
        'credential',
        'credentials',
        'insufficient',
        'scope',
        'scopes',
        'member',
        'signature',
        'allowed',
        'blocked',
        'forbidden',
        'refused',
        'denied',
      ],
      text: new RegExp(
        String.raw`\b${credentialSubject}\b[^\n.]{0,30}\b(?:does not|doesn.t|do not|don.t|lacks?) (?:have )?(?:the )?(?:(?:required |necessary |sufficient |enough )?scopes?|(?:required|necessary) (?:permissions?|privileges|rights))\b|\b(?:rejected|denied|refused|forbidden)\b[^\n]{0,40}\binsufficient (?:authentication )?(?:permissions?|scopes?|privileges)\b|\binsufficient (?:authentication )?scopes?\b|\b(?:oauth |access |refresh |bearer |auth |session )?(?:api[ _-]?key|key|token|credentials?)\b[^\n.]{0,20}\b(?:(?:has|have)\s{1,4}(?:already\s{1,4})?been|was|were|is|are)\s{1,4}(?:revoked|terminated|disabled|expired|invalid|blocked|rejected|already used|used)\b|\b(?:access|account)\b[^\n.]{0,20}\b(?:has been|was|is) (?:revoked|terminated|suspended)\b|\bnot (?:authori[sz]ed|allowed|permitted) to use this (?:api[ _-]?key|key|token)\b|\binvalid[ _]scope\b|\bmust be a member of an? (?:organi[sz]ation|org|team|workspace|project) to (?:use|access|call|invoke|query) (?:the |this |that )?(?:[\w.-]{1,20} )?(?:api|models?|service|inference|endpoint)\b|\b(?:request )?signature (?:does not conform|is incomplete|does not match)\b|\b(?:user|account)(?: id)? is not linked to\b|\ballowed only from (?:approved |allowed )?(?:ip|addresses|networks|origins)\b|\byour role does not (?:include|grant|allow)\b[^\n]{0,60}\b(?:llm|models?|api|gateway|inference|completions?)\b|\b(?:upstream )?access (?:forbidden|refused|denied),? please contact (?:your |the |an )?(?:administrator|admin)\b`,
      ),
      unless: new RegExp(`${notAProviderRefusal.source}|${notACredential.source}`),
    },
  },
  {
    id: 'provider.model_refused.v1',
    description:
      'A model behind a gate by shape: not activated, enabled or open to the account, its access denied, its terms not accepted, a feature it does not support, or not ready',
    tier: 'pattern',
    code: 'model_unavailable',
    confidence: 'high',
    when: {
      keywords: ['model', 'models', 'endpoints', 'policy_blocked', 'modelproviderpolicyerror', '模型'],
      text: /\bmodels?\b[^\n]{0,60}\b(?:(?:has |have )?not (?:been )?(?:activated|enabled|opened|purchased|accepted|agreed)|(?:access )?(?:is |was |has been )?denied|(?:is |was )?blocked|(?:does not|doesn.t|do not|don.t) support (?:the )?(?:[\w-]{1,20} ){0,2}(?:feature|plan|tool use|tools(?! (?:parameter|param|field|argument|option))|function calling)|is cold|not ready for (?:inference|use)|is gated|(?:terms|licen[cs]e|use case (?:details|form))\b[^\n]{0,30}\bnot (?:been )?(?:accepted|agreed|submitted))\b|\b(?:has not activated|have not activated|not found|cannot use|can.t use|no access to|access to|not agreed to|not accepted)(?: the| this| that)? models?\b|\baccess to (?:[\w.-]{1,30} ){0,2}models?\b[^\n]{0,20}\b(?:is |are )?(?:not allowed|not permitted|denied|blocked)\b|\bnot (?:yet )?(?:agreed to|accepted) (?:the )?[\w. -]{0,40}\bmodel(?:.s)? (?:terms|licen[cs]e|eula)\b|\bno endpoints found that support\b|\bpolicy_blocked\b|\bmodelproviderpolicyerror\b|无权(?:使用|访问|调用)(?:此|该)?模型|(?:没有|无)(?:权限)?(?:使用|访问|调用)(?:此|该)?模型的?权限/,
      // A model file, its weights or a download is the local runtime's; a model picker or selector is the UI's. A tool
      // call the user denied or has yet to approve, and a response a content filter blocked, are no gate on the model.
      unless: new RegExp(
        String.raw`${notAProviderRefusal.source}|\bmodels? (?:file|weights|path|director(?:y|ies)|dir|card|download|picker|selector|list|menu|settings)\b|\b(?:download|pull|load)(?:ing|ed)? (?:the |this )?models?\b|\bdenied by (?:the )?user\b|\buser (?:denied|rejected)\b|\bapprov(?:e|al)\b|\bpermission (?:request|prompt)\b|\bcontent (?:filter|policy)\b|\bmoderation\b|\bsafety\b`,
      ),
    },
  },
  {
    id: 'provider.setting_missing.v1',
    description:
      'A provider setting absent or wrong by shape: a base URL, endpoint, region, deployment, resource or provider not set, empty or not found, no model configured, a location not served',
    tier: 'pattern',
    code: 'provider_not_configured',
    confidence: 'high',
    when: {
      keywords: [
        'base',
        'baseurl',
        'base_url',
        'url',
        'endpoint',
        'region',
        'deployment',
        'resource',
        'provider',
        'providers',
        'model',
        'models',
        'location',
        'country',
        'territory',
        'center',
        'datacenter',
        'path',
        'method',
        'servable',
        'allowed',
        'service',
        'project',
        'uri',
        'available',
      ],
      text: /\b(?:[a-z0-9]{1,20}_)?(?:base[ _-]?url|api[ _-]?base|api[ _-]?url|endpoint|region|deployment(?: name)?|resource name|(?:llm |model |ai )?provider|(?:chat |language |default )model)\b[^\n]{0,20}\b(?:is not set|not set|is not configured|not configured|not properly configured|is missing|missing|is empty|cannot be empty|must not be empty|is required|must be (?:set|provided|specified)|not servable|is incorrect|incorrect|is invalid|is not correct)\b|\bproject(?: id)?(?: or (?:api[ _-]?key|location|region))? (?:is not set|not set|is required|must be (?:set|provided|specified))\b|\b(?:uri|url|request|api) path\b[^\n]{0,80}\b(?:does not exist|not found)\b|\bno (?:[\w-]{1,20} ){0,3}models? (?:is |are )?available\b[^\n]{0,80}\bcheck (?:your |the )?(?:[\w-]{1,20} )?(?:configuration|config|settings)\b|\b(?:endpoint|provider)\b[^\n]{0,20}\bnot found\b(?! in\b)|\bno (?:llm |model |ai )?provider found\b|\bdoes not have an? (?:[\w.-]{1,30} ){0,5}(?:model|provider|endpoint|deployment) configured\b|\bno (?:language |chat |default |llm )?(?:models?|providers?|endpoints?) (?:is |are |has been |have been )?(?:configured|set up|selected|defined)\b|\b(?:set up|configure|add) at least one (?:chat |language |llm )?(?:model|provider)\b|\bnot (?:currently )?(?:available|accessible|supported|servable|access) (?:in|from) (?:your |the |this )?(?:location|region|country|territory|data ?center)\b|\b(?:connecting|connections?|access(?:ing)?|requests?|calling) from an? (?:restricted|unsupported|blocked|sanctioned) (?:region|country|location|territory)\b|\bmethod not allowed\b|\b(?:request )?(?:path|url) (?:is )?(?:incorrect|not correct)\b|\bpermission denied to enable service\b/,
      // An OAuth or identity provider, a sign-in or an SSO login is the agent's own session, not a model provider; a
      // metrics, health, callback or exporter endpoint is no model API's.
      unless: new RegExp(
        String.raw`${notAProviderRefusal.source}|\b(?:oauth|identity|auth|authentication|sso|oidc|saml|login|sign-in) provider\b|\bproxy\b|\b(?:metrics|health|callback|redirect|otel|otlp|collector|tracing|trace|logging|log|status|upload|download|export|exporter|prometheus) endpoint\b|\b(?:using|falling back to|fall back to|defaulting to) (?:the )?defaults?\b`,
      ),
    },
  },
  {
    id: 'provider.usage_exhausted.v1',
    description:
      'Usage, quota, credits or balance at an end by shape: reached, exceeded, exhausted, used up or insufficient, with no short window named',
    tier: 'pattern',
    code: 'quota_limited',
    confidence: 'high',
    when: {
      keywords: [
        'usage',
        'quota',
        'credit',
        'credits',
        'balance',
        'spend',
        'spending',
        'funds',
        'exhausted',
        'free',
        'trial',
        'need',
      ],
      text: /\b(?:usage|quota|credits?|balance|spend(?:ing)?)(?: limits?)?\b[^\n]{0,20}\b(?:(?:has|have)\s{1,4}(?:been\s{1,4})?|is\s{1,4}|was\s{1,4}|are\s{1,4})?(?:reached|exceeded|exhausted|used up|depleted|insufficient|too low|run out|ran out)\b|\b(?:exhausted|reached|exceed(?:s|ed)?|used up|hit) (?:the |your |all (?:of )?(?:the |your )?)?(?:[\w-]{1,15} ){0,3}(?:usage|quota|credits?|spend(?:ing)?)(?: limits?)?\b|\b(?:insufficient|not enough|no remaining|no more) (?:credits?|balance|quota|funds)\b|\bquota:? -?[\d.]{1,15},? need(?:ed)? quota\b/,
      // A short window (per minute, a rate limit) is a throttle; the context or a token limit of the prompt is the
      // request's size; a disk, memory, CPU, GPU or bandwidth quota is the machine's or a host's. A budget is left out
      // altogether: a bundle's size budget, a step or a retry budget "exceed" too (a gateway's spend budget has rules
      // of its own).
      unless: new RegExp(
        String.raw`${notAProviderRefusal.source}|\brate[ _-]?limit|\b(?:per|this|a|each|every) (?:minute|second|hour)\b|\brequests per\b|\b(?:rpm|tpm|rps)\b|\bcontext\b|\bmax(?:imum)?[ _]tokens\b|\bmemory\b|\bcpu\b|\bgpu\b|\bvram\b|\bbandwidth\b|\bbuild minutes\b|\bbundle\b`,
      ),
    },
  },
  {
    id: 'provider.plan_gate.v1',
    description:
      'A plan, subscription or tier that refuses by shape: required, expired, not including the feature, or a free tier limited to other models',
    tier: 'pattern',
    code: 'subscription_required',
    confidence: 'high',
    when: {
      keywords: [
        'plan',
        'plans',
        'subscription',
        'subscribe',
        'tier',
        'policy',
        'policies',
        'free',
        'trial',
        'requires',
        'require',
        'required',
        'billing',
      ],
      text: /\b(?:access )?(?:denied|disabled|blocked) by (?:your |the )?(?:[\w-]{1,20} )?(?:organi[sz]ation|org|enterprise|admin(?:istrator)?|workspace|team|account|copilot)(?:.s)? polic(?:y|ies)\b|\brequires? (?:an? |the |your )?(?:[\w-]{1,15} )?(?:paid|pro|plus|max|team|teams|business|enterprise|premium|higher|upgraded|active|valid|individual|ultra|standard|starter|developer|scale) (?:plan|subscription|tier)\b|\brequires? (?:an? |the |your )?(?:active |valid |paid )?subscription\b|\brequires? an? (?:[\w-]{1,15} ){0,3}policy to be enabled\b|\b(?:must|need to|please) (?:subscribe to|upgrade (?:to|your) (?:an? |the )?(?:[\w-]{1,15} ){0,2}(?:plan|subscription|tier|account))\b|\b(?:plan|subscription|tier)\b[^\n]{0,20}\b(?:has expired|expired|does not include|doesn.t include|is not included|not included)\b|\b(?:free|trial) (?:users?|accounts?|plans?|tiers?) (?:can only|cannot|can.t|are not allowed to|is limited to|are limited to)\b|\bplease use an? (?:[\w-]{1,15} ){0,3}(?:subscription|plan)\b|\bnot available (?:for|on|in|with) (?:billing|your (?:current )?(?:plan|tier|subscription)|(?:the )?free (?:plan|tier)|free (?:users|accounts))\b/,
      // "Upgrade your plan for a higher rate limit" is advice beside a throttle, not the plan's refusal; an execution,
      // query, migration or test plan, and a plan file or mode, are no subscription.
      unless: new RegExp(
        String.raw`${notAProviderRefusal.source}|\bhigher rate limits?\b|\brate[ _-]?limit|\b(?:execution|query|migration|test|deploy(?:ment)?|build|release|project|terraform) plans?\b|\bplans? (?:file|mode|step)s?\b`,
      ),
    },
  },
  {
    id: 'provider.credentials_absent.v1',
    description:
      'No credential at all by shape: no API key, token or credentials for a provider, or credentials that could not be determined',
    tier: 'pattern',
    code: 'missing_credentials',
    confidence: 'high',
    when: {
      keywords: [
        'api',
        'key',
        'apikey',
        'api_key',
        'token',
        'credential',
        'credentials',
        'auth',
        'authentication',
        '令牌',
        '密钥',
      ],
      text: /\bno (?:api[ _-]?key|key|credentials?|token|auth(?:entication)?) (?:was )?(?:found |configured |set |available )?for (?:the )?(?:provider|model|[a-z][\w.-]{1,30}[:/])|\bcould not (?:automatically )?(?:determine|find|locate|load|resolve) (?:the |any )?(?:default )?credentials\b|\bno (?:[\w-]{1,20} ){0,3}(?:api[ _-]?key|auth(?:entication)? token|access token|credentials?) (?:was |were )?found\b|\b(?:credentials?|api[ _-]?key|token) (?:is |are )?required (?:for|by|when using) (?:the )?[\w.-]{0,60}(?:chat|completions?|llm|model|inference|openai|anthropic|gemini|bedrock|vertex|mistral|cohere|groq)[\w.-]{0,40}(?:client|provider|model|api)\b|未(?:提供|设置|配置)\s?(?:令牌|密钥|api[ _-]?key|token)|缺少\s?(?:令牌|密钥|api[ _-]?key)/,
      unless: notAProviderRefusal,
    },
  },
];
