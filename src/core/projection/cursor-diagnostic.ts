import { utf8ByteLength } from '../text/utf8.js';
import { trimUnicode } from '../text/whitespace.js';

/**
 * The one definition of a Cursor retriable diagnostic, shared by the ACP observer (projection) and the
 * catalogue rule `cursor.retriable_stream_reset.v1` (REQUIREMENTS CUR-10): the case-insensitive prefix, the
 * Unicode trim and the 256-byte suffix bound.
 */
export const cursorDiagnosticPrefix = 'Error: RetriableError:';

/** The bound of the text after the prefix, in UTF-8 bytes after Unicode whitespace trimming. */
export const cursorSuffixMaxBytes = 256;

/** The bounded constant the adapter emits instead of copying assistant text (CUR-19). */
export const cursorConstantDiagnostic =
  'Error: RetriableError: HTTP/2 stream closed with error code CANCEL (0x8)';

/**
 * Context cancellation, deadline and retry escalation veto a match (CUR-08). Cursor's own `[canceled]` tag is
 * not among them: it describes the upstream stream, not our cancellation.
 */
export const cancellationVetoes = [
  'context canceled',
  'context deadline exceeded',
  'cancel escalated',
] as const;

export type CursorDiagnosticMatch =
  | { readonly matched: true; readonly suffix: string }
  | { readonly matched: false; readonly reason: 'no_prefix' | 'empty_suffix' | 'suffix_too_long' | 'vetoed' };

/** Applies the prefix, suffix and veto checks, in that order, to one complete text. */
export function matchCursorRetriableDiagnostic(text: string): CursorDiagnosticMatch {
  const trimmed = trimUnicode(text);
  if (trimmed.length < cursorDiagnosticPrefix.length) return { matched: false, reason: 'no_prefix' };
  if (
    trimmed.slice(0, cursorDiagnosticPrefix.length).toLowerCase() !== cursorDiagnosticPrefix.toLowerCase()
  ) {
    return { matched: false, reason: 'no_prefix' };
  }
  const suffix = trimUnicode(trimmed.slice(cursorDiagnosticPrefix.length));
  if (suffix.length === 0) return { matched: false, reason: 'empty_suffix' };
  if (utf8ByteLength(suffix) > cursorSuffixMaxBytes) return { matched: false, reason: 'suffix_too_long' };
  const lower = suffix.toLowerCase();
  if (cancellationVetoes.some((veto) => lower.includes(veto))) return { matched: false, reason: 'vetoed' };
  return { matched: true, suffix };
}
