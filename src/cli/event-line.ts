import { escapeControlCharacters } from '../core/text/escape-controls.js';

const clean = escapeControlCharacters;

type Data = Readonly<Record<string, unknown>>;

/** A field of the event's data as text: `-` when it is missing or null. */
function text(value: unknown): string {
  if (value === undefined || value === null) return '-';
  return clean(typeof value === 'string' ? value : JSON.stringify(value));
}

function objectAt(data: Data, key: string): Data {
  const value = data[key];
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Data) : {};
}

/** How each event type reads on one line, after its server time and type; an unknown type shows its data. */
const describe: Readonly<Record<string, (data: Data) => string>> = {
  'route.transition': (data) => {
    const route = objectAt(data, 'route');
    const reason = route.reason === null || route.reason === undefined ? '' : ` (${text(route.reason)})`;
    return `${text(route.id)} ${text(data.from)} -> ${text(route.state)} ${text(route.code)}${reason}`;
  },
  'route.dispatch': (data) => {
    const intent = objectAt(data, 'intent');
    return `${text(intent.route_id)} ${text(intent.kind)} attempt on ${text(intent.candidate)}, generation ${text(intent.generation)}`;
  },
  'circuit.changed': (data) => {
    const circuit = objectAt(data, 'circuit');
    return `${text(circuit.key)} ${text(circuit.state)} until ${text(circuit.open_until)}`;
  },
  'route.purged': (data) => {
    const ids = Array.isArray(data.route_ids) ? data.route_ids : [];
    return `${ids.length} route${ids.length === 1 ? '' : 's'} purged: ${ids.map(text).join(', ')}`;
  },
  'recourse.reconciled': (data) =>
    `rearmed ${text(data.rearmed)}, stopped ${text(data.stopped)}, orphaned ${text(data.orphaned)}`,
  'session.message.created': (data) => messageLine(objectAt(data, 'message')),
  'session.message.updated': (data) => messageLine(objectAt(data, 'message')),
  'session.message.deleted': (data) =>
    `${text(data.task_id)}/${text(data.session_id)} ${text(data.message_id)}`,
};

function messageLine(message: Data): string {
  return `${text(message.task_id)}/${text(message.session_id)} ${text(message.id)} ${text(message.kind)}`;
}

/** `<server_time> <type> <what happened>`: one line per event for `recourse events`. */
export function eventLine(type: string, data: unknown): string {
  const fields: Data =
    typeof data === 'object' && data !== null && !Array.isArray(data) ? (data as Data) : {};
  const own = describe[type];
  const rest = { ...fields };
  delete rest.server_time;
  const what = own === undefined ? clean(JSON.stringify(rest)).slice(0, 300) : own(fields);
  return `${text(fields.server_time)} ${clean(type)} ${what}`;
}
