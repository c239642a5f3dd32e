import { evidenceBounds, truncationMark } from './bounds.js';
import { cutUtf8, utf8ByteLength } from '../text/utf8.js';
import { withoutSplitRun } from '../text/key-characters.js';

/**
 * Serializes an arbitrary value as JSON text within a byte budget, a depth and a per-container entry limit,
 * so a hostile or huge `error.data` can never cost more than the bound. Non-JSON values (functions,
 * symbols, bigints) are rendered as `null`. Returns whether anything was cut.
 */
export function boundedJson(
  value: unknown,
  maxBytes: number = evidenceBounds.textBytes,
): { text: string; cut: boolean } {
  const state = { parts: [] as string[], bytes: 0, cut: false, maxBytes };
  write(value, 0, state);
  const text = state.parts.join('');
  return state.cut ? { text: text + truncationMark, cut: true } : { text, cut: false };
}

interface WriteState {
  parts: string[];
  bytes: number;
  cut: boolean;
  readonly maxBytes: number;
}

function emit(piece: string, state: WriteState): boolean {
  if (state.cut) return false;
  const size = utf8ByteLength(piece);
  if (state.bytes + size > state.maxBytes) {
    state.cut = true;
    return false;
  }
  state.parts.push(piece);
  state.bytes += size;
  return true;
}

/** Emits as much of a string as the budget allows (escapes can expand it, so shrink until it fits). */
function writeString(value: string, state: WriteState): void {
  const budget = state.maxBytes - state.bytes;
  // Cut before escaping: a value far beyond the budget is never stringified whole.
  let kept = cutUtf8(value, Math.max(0, budget - 2));
  for (;;) {
    // A key the cut split is left out whole (its first characters alone would not read as a key).
    if (kept.length !== value.length) kept = withoutSplitRun(kept, value.charCodeAt(kept.length));
    const piece = JSON.stringify(kept);
    if (utf8ByteLength(piece) <= budget) {
      emit(piece, state);
      if (kept.length !== value.length) state.cut = true;
      return;
    }
    if (kept.length === 0) {
      state.cut = true;
      return;
    }
    kept = cutUtf8(kept, Math.floor(utf8ByteLength(kept) / 2));
  }
}

function write(value: unknown, depth: number, state: WriteState): void {
  if (state.cut) return;
  if (value === null || value === undefined) {
    emit('null', state);
    return;
  }
  switch (typeof value) {
    case 'string':
      writeString(value, state);
      return;
    case 'number':
      emit(Number.isFinite(value) ? String(value) : 'null', state);
      return;
    case 'boolean':
      emit(value ? 'true' : 'false', state);
      return;
    case 'object':
      break;
    default:
      emit('null', state);
      return;
  }
  if (depth >= evidenceBounds.jsonDepth) {
    state.cut = true;
    return;
  }
  if (Array.isArray(value)) {
    emit('[', state);
    const n = Math.min(value.length, evidenceBounds.jsonEntries);
    for (let i = 0; i < n && !state.cut; i++) {
      if (i > 0) emit(',', state);
      write(value[i], depth + 1, state);
    }
    if (value.length > n) state.cut = true;
    emit(']', state);
    return;
  }
  emit('{', state);
  let i = 0;
  for (const key in value as Record<string, unknown>) {
    if (!Object.prototype.hasOwnProperty.call(value, key)) continue;
    if (i >= evidenceBounds.jsonEntries) {
      state.cut = true;
      break;
    }
    if (i > 0) emit(',', state);
    emit(JSON.stringify(key.length > 1024 ? key.slice(0, 1024) : key) + ':', state);
    write((value as Record<string, unknown>)[key], depth + 1, state);
    i++;
    if (state.cut) break;
  }
  emit('}', state);
}
