import { agentRules } from './rules/agents.js';
import { agentTurnRules } from './rules/agent-turns.js';
import { appWordsRules } from './rules/app-words.js';
import { clientTransportRules } from './rules/client-transport.js';
import { errorFieldRules } from './rules/error-fields.js';
import { exceptionRules } from './rules/exceptions.js';
import { hardShapeRules } from './rules/hard-shapes.js';
import { httpStatusRules } from './rules/http-status.js';
import { localRules } from './rules/local.js';
import { networkRules } from './rules/network.js';
import { providerDialectRules } from './rules/provider-dialects.js';
import { peerSuiteRules } from './rules/peer-suites.js';
import { proseHardRules } from './rules/prose-hard.js';
import { providerSignatureRules } from './rules/provider-signatures.js';
import { sdkSetupRules } from './rules/sdk-setup.js';
import { servingLayerRules } from './rules/serving-layer.js';
import { toolLookalikeRules } from './rules/tool-lookalikes.js';
import { toolSourceRules } from './rules/tool-sources.js';
import { toolSurfaceRules } from './rules/tool-surface.js';
import { withModelCallAnchor } from './model-call-anchor.js';
import type { Rule } from './rule.js';

/**
 * Every rule of the catalogue, in declaration order (the last tie-breaker of precedence); broad transient rules
 * need the text to name the model call when the evidence names no source (`withModelCallAnchor`).
 */
export const catalogueRules: readonly Rule[] = Object.freeze(
  withModelCallAnchor([
    ...agentRules,
    ...errorFieldRules,
    ...exceptionRules,
    ...localRules,
    ...providerSignatureRules,
    ...servingLayerRules,
    ...appWordsRules,
    ...providerDialectRules,
    ...toolSurfaceRules,
    ...peerSuiteRules,
    ...agentTurnRules,
    ...clientTransportRules,
    ...toolLookalikeRules,
    ...toolSourceRules,
    ...proseHardRules,
    ...sdkSetupRules,
    ...hardShapeRules,
    ...networkRules,
    ...httpStatusRules,
  ]),
);
