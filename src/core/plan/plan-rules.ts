import type { PlanErrorCategory } from './categories.js';

/**
 * Plan-specific recognition, tried after the provider catalogue (REQUIREMENTS PLN-03 decision). Data, in
 * precedence order: the first rule whose exception types or message pattern match decides.
 */
export interface PlanRule {
  readonly category: PlanErrorCategory;
  /** Exception class names (the last dotted segment, case-insensitive). */
  readonly exceptions: readonly string[];
  /** Tested on the lower-cased message. */
  readonly message?: RegExp;
}

export const planRules: readonly PlanRule[] = [
  {
    category: 'merge_conflict',
    exceptions: ['mergeconflicterror', 'mergeerror'],
    message:
      /merge conflict|conflict \(content\)|automatic merge failed|could not apply [0-9a-f]{4,}|patch does not apply|sandbox merge (?:failed|conflict)/,
  },
  {
    category: 'validation',
    exceptions: ['validationerror', 'schemaerror', 'assertionerror', 'zoderror', 'jsonschemavalidationerror'],
    message:
      /validation (?:error|failed|failure)|failed validation|schema (?:validation|mismatch)|does not match (?:the )?schema|invalid (?:output|input|plan|patch|result)|assertion failed|expected [^\n]{1,60} but (?:got|received|found)/,
  },
  {
    category: 'configuration',
    exceptions: ['configurationerror', 'configerror', 'improperlyconfigured'],
    message:
      /missing required (?:field|setting|option|config(?:uration)?|key|parameter)|(?:invalid|bad|malformed) (?:config|configuration|setting)|configuration (?:error|is invalid|missing)|not configured|unknown (?:option|setting|config(?:uration)? key)/,
  },
  {
    category: 'resource',
    exceptions: [
      'filenotfounderror',
      'fileexistserror',
      'isadirectoryerror',
      'notadirectoryerror',
      'resourcenotfounderror',
      'conflicterror',
    ],
    message:
      /(?:file|directory|path|branch|worktree|resource|plan|artifact|sandbox)(?: [^\s]{1,120})? (?:not found|does not exist|already exists|is locked)|no such file or directory|\benoent\b|\beexist\b|resource (?:conflict|busy)|locked by another/,
  },
  {
    // Auth and authz failures (seed 004): credentials refused, and permission refused.
    category: 'authentication',
    exceptions: [
      'permissiondenied',
      'permissionerror',
      'accessdeniederror',
      'forbiddenerror',
      'unauthorizederror',
      'authorizationerror',
    ],
    message:
      /not authorized|unauthori[sz]ed|access denied|permission denied|forbidden|authori[sz]ation (?:failed|denied)|authentication (?:failed|required)/,
  },
  {
    // LLM provider errors: a token limit the provider catalogue did not already name (seed 004: "token limit").
    category: 'provider',
    exceptions: ['tokenlimiterror', 'tokenlimitexceedederror'],
    message:
      /\btoken limit (?:exceeded|reached|was reached|hit)|\bmax_tokens (?:exceeded|limit (?:exceeded|reached))|\bmaximum (?:number of )?tokens (?:exceeded|reached)|exceeds? the (?:model'?s? )?(?:token|context) (?:limit|window)/,
  },
  {
    category: 'transient',
    exceptions: ['timeouterror', 'timeoutexception', 'connectionerror', 'networkerror', 'temporaryerror'],
    message:
      /timed out|timeout|temporar(?:y|ily) (?:unavailable|failure|error)|try again later|connection (?:reset|refused|aborted)/,
  },
  {
    category: 'internal',
    exceptions: [
      'typeerror',
      'referenceerror',
      'attributeerror',
      'keyerror',
      'indexerror',
      'nameerror',
      'zerodivisionerror',
      'notimplementederror',
      'recursionerror',
      'unboundlocalerror',
      'nullpointerexception',
      'illegalstateexception',
    ],
    message: /internal error|unexpected error|unreachable|this is a bug|invariant violated/,
  },
];
