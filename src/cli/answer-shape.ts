/** A JSON value's type as an answer's shape names it: `typeof`, with arrays and null told apart from objects. */
export type JsonType = 'string' | 'number' | 'boolean' | 'object' | 'array' | 'null';

/**
 * The fields a Recourse answer always carries, each with its JSON type (a list: any of them), or, for a field a
 * command reads into, the shape of that object (`{fields: ...}`) or of every item of that array (`{items: ...}`).
 * A client command checks an answer against it before reading it, so a server that answers other JSON (another
 * service on the port, a proxy's own document) is said to be one instead of crashing the command with a stack trace.
 */
export type AnswerShape = Readonly<Record<string, FieldShape>>;
export type FieldShape =
  JsonType | readonly JsonType[] | { readonly fields: AnswerShape } | { readonly items: AnswerShape };

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
  return fieldsProblem(body as Record<string, unknown>, shape, '');
}

/** The first field of `fields` (named from `at`, `plan.id`, `errors[0].phase`) that does not fit `shape`. */
function fieldsProblem(fields: Record<string, unknown>, shape: AnswerShape, at: string): string | null {
  for (const [field, expected] of Object.entries(shape)) {
    const name = `${at}${field}`;
    const value = fields[field];
    const actual = jsonTypeOf(value);
    if (typeof expected === 'string' || Array.isArray(expected)) {
      const allowed = (typeof expected === 'string' ? [expected] : expected) as readonly JsonType[];
      if (actual === 'missing' || !allowed.includes(actual)) return `no ${name} ${allowed.join(' or ')}`;
    } else if ('fields' in expected) {
      if (actual !== 'object') return `no ${name} object`;
      const problem = fieldsProblem(value as Record<string, unknown>, expected.fields, `${name}.`);
      if (problem !== null) return problem;
    } else if ('items' in expected) {
      if (actual !== 'array') return `no ${name} array`;
      const items = value as unknown[];
      for (let i = 0; i < items.length; i++) {
        if (jsonTypeOf(items[i]) !== 'object') return `no ${name}[${i}] object`;
        const problem = fieldsProblem(items[i] as Record<string, unknown>, expected.items, `${name}[${i}].`);
        if (problem !== null) return problem;
      }
    }
  }
  return null;
}
