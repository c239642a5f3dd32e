import type { Evidence } from './evidence.js';

/**
 * The failure's own message, in memory only: the safety gate compares a trailing assistant text with it (a
 * matching diagnostic is not output). It is never stored; storage keeps the classification's safe excerpt.
 */
export function evidenceMessage(evidence: Evidence): string {
  switch (evidence.kind) {
    case 'http':
      return evidence.body;
    case 'acp_error':
      return evidence.message;
    case 'acp_update':
      return evidence.text ?? '';
    case 'stderr':
      return evidence.text;
    case 'process_exit':
      return evidence.stderrTail;
    case 'sdk_exception':
      return evidence.message;
  }
}
