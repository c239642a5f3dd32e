import { paint, type Tone } from './terminal-style.js';

/** A cell: its text, and the tone it is painted in (after padding, so colour codes never skew the columns). */
export type Cell = string | { readonly text: string; readonly tone: Tone | null };

/**
 * Columns padded to their widest cell, two spaces apart, the last one unpadded. Cells are shown as given: escape
 * what came from the server before it gets here.
 */
export function renderTable(header: readonly string[], rows: readonly (readonly Cell[])[]): string {
  const textOf = (cell: Cell) => (typeof cell === 'string' ? cell : cell.text);
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => textOf(r[i] ?? '').length)));
  const line = (cells: readonly Cell[]) =>
    cells
      .map((cell, i) => {
        const text = i === cells.length - 1 ? textOf(cell) : textOf(cell).padEnd(widths[i] ?? 0);
        return typeof cell === 'string' ? text : paint(text, cell.tone);
      })
      .join('  ')
      .trimEnd();
  return [line(header), ...rows.map(line)].map((l) => `${l}\n`).join('');
}
