import { classifyEvidence, defaultCatalogue, parseEnvelope } from '../dist/core/index.js';
import { corpusFiles, readCorpus, replayNow, toEnvelope } from '../test/helpers/corpus.mjs';
const evidence = corpusFiles.flatMap(readCorpus).flatMap((record) => {
  const parsed = parseEnvelope(toEnvelope(record));
  return parsed.ok ? [{ evidence: parsed.evidence, options: { now: replayNow(record) } }] : [];
});
const cat = defaultCatalogue;
for (let r = 0; r < 60; r++) for (const e of evidence) classifyEvidence(e.evidence, e.options, cat);
