import type { Rule } from '../rule.js';

/**
 * Round 33: the failing surface named as the evidence's source is itself a tool around the agent. Peer projects'
 * suites test their search and workspace integrations with the platform's own error bodies ("extra_snippets requires a
 * Pro plan", "The subscription token is invalid"), worded exactly like a model provider's plan and credential
 * refusals. When the provider or agent id is such a platform, whatever the text says is that platform's, not a model
 * call's. Platforms that also serve models (a code host's model inference, an AI gateway, an embeddings API) are left
 * out: their ids do not tell which call failed. Fixtures: r33-tool-source-* in `catalogue/fixtures/generic.jsonl`.
 */
export const toolSourceRules: readonly Rule[] = [
  {
    id: 'local.tool_platform_source.v1',
    description:
      "Evidence whose source (provider or agent id) is a search, scraping, chat, tracker, docs or payment platform's API: its refusals, limits and outages are a tool's, not a model provider's",
    tier: 'signature',
    // With the named tool rules (33 and up): above every provider and network rule, whose words these texts carry.
    priority: 34,
    code: 'side_channel',
    confidence: 'high',
    when: {
      sources: [
        'brave-search',
        'brave',
        'tavily',
        'serpapi',
        'serper',
        'exa',
        'firecrawl',
        'jina-reader',
        'duckduckgo',
        'bing-search',
        'google-search',
        'slack',
        'discord',
        'notion',
        'linear',
        'jira',
        'confluence',
        'atlassian',
        'sentry',
        'supabase',
        'netlify',
        'stripe',
        'figma',
        'context7',
        'gitlab',
        'bitbucket',
      ],
    },
  },
];
