/** A JSON value's type as an answer's shape names it: `typeof`, with arrays and null told apart from objects. */
export type JsonType = 'string' | 'number' | 'boolean' | 'object' | 'array' | 'null';

/**
 * The top-level fields a Recourse answer always carries, each with its JSON type (a list: any of them). A client
 * command checks an answer against it before reading it, so a server that answers other JSON (another service on
 * the port, a proxy's own document) is said to be one instead of crashing the command with a stack trace.
 */
export type AnswerShape = Readonly<Record<string, JsonType | readonly JsonType[]>>;

function jsonTypeOf(value: unknown): JsonType | 'missing' {
  if (value === undefined) return 'missing';
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  const type = typeof value;
  return type === 'string' || type === 'number' || type === 'boolean' ? type : 'object';
}

/** Why `body` is not an answer of `shape`, in a few words (`no routes array`), or null when it is one. */
export function shapeProblem(body: unknown, shape: AnswerShape): string | null {
  const type = jsonTypeOf(body);
  if (type !== 'object') return `a JSON ${type === 'missing' ? 'nothing' : type}, not an object`;
  const fields = body as Record<string, unknown>;
  for (const [field, expected] of Object.entries(shape)) {
    const allowed: readonly JsonType[] = typeof expected === 'string' ? [expected] : expected;
    const actual = jsonTypeOf(fields[field]);
    if (actual === 'missing' || !allowed.includes(actual)) return `no ${field} ${allowed.join(' or ')}`;
  }
  return null;
}
