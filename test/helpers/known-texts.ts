import { factsOf } from '../../src/core/classify/facts.js';
import { parseEnvelope } from '../../src/core/index.js';
import { corpusFiles, readCorpus, toEnvelope } from './corpus.mjs';
import { loadFixtures } from './fixtures.js';

/** The text the classifier matches rules against, of every catalogue fixture and every corpus record that parses. */
export function knownEvidenceTexts(): string[] {
  return [
    ...loadFixtures().map((f) => f.evidence),
    ...corpusFiles.flatMap((file) => readCorpus(file).map(toEnvelope)),
  ].flatMap((envelope) => {
    const parsed = parseEnvelope(envelope);
    return parsed.ok ? [factsOf(parsed.evidence).text] : [];
  });
}
