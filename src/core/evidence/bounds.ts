/**
 * Size bounds of evidence (REQUIREMENTS EVD-02 decision). Excess is cut and marked, never an error, so an
 * adapter can forward whatever it captured without first measuring it.
 */
export const evidenceBounds = {
  /** Bodies, messages, stderr text and tails, in UTF-8 bytes. */
  textBytes: 64 * 1024,
  /** Header entries kept (in the order given). */
  headerEntries: 64,
  /** Bytes of one header name or value. */
  headerBytes: 1024,
  /** Bytes of an identifier (provider, agent, model, invocation, phase, exception name, signal). */
  idBytes: 256,
  /** Depth kept when a JSON value (`error.data`, `update`, a JSON body) is serialized. */
  jsonDepth: 8,
  /** Entries kept per JSON object or array when serialized. */
  jsonEntries: 256,
} as const;

/** Appended to a text that was cut, so a reader never mistakes a fragment for the whole. */
export const truncationMark = '…[truncated]';
