/** Terminal styling for human output: colour only on a terminal, and never when NO_COLOR is set (no-color.org). */
export interface Style {
  readonly color: boolean;
}

/**
 * Whether to colour `stream`: it is a terminal and `NO_COLOR` is absent or empty. Pipes, files and CI logs get
 * plain text, so nothing downstream has to strip escape codes.
 */
export function styleFor(
  stream: { readonly isTTY?: boolean },
  env: Readonly<Record<string, string | undefined>>,
): Style {
  const noColor = env.NO_COLOR !== undefined && env.NO_COLOR !== '';
  return { color: stream.isTTY === true && !noColor };
}

const codes = { green: 32, red: 31, yellow: 33, bold: 1, dim: 2 } as const;

/** `text` in a colour when the style allows it, else unchanged. */
export function paint(style: Style, colour: keyof typeof codes, text: string): string {
  return style.color ? `\u001b[${codes[colour]}m${text}\u001b[0m` : text;
}
