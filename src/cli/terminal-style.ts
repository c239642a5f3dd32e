/** The few colours the operator commands use: a state that needs a person, one that waits, one that runs. */
export type Tone = 'alert' | 'waiting' | 'fine' | 'dim';

const codes: Readonly<Record<Tone, string>> = { alert: '31', waiting: '33', fine: '32', dim: '2' };

/**
 * Colour only for a person at a terminal: standard output is a TTY and NO_COLOR is unset or empty
 * (https://no-color.org). A pipe, a file or a test gets plain text.
 */
export function colourEnabled(): boolean {
  const noColor = process.env.NO_COLOR;
  return (
    process.stdout.isTTY === true && (noColor === undefined || noColor === '') && process.env.TERM !== 'dumb'
  );
}

/** `text` in its tone when colour is enabled; the text itself otherwise. */
export function paint(text: string, tone: Tone | null, enabled = colourEnabled()): string {
  return enabled && tone !== null ? `\u001b[${codes[tone]}m${text}\u001b[0m` : text;
}
