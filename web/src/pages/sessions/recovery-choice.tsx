import { absoluteTime } from '../../format.js';
import type { MessageDoc } from './session-types.js';

export const recoveryChoices = ['resume', 'start_fresh'] as const;
export type RecoveryChoice = (typeof recoveryChoices)[number];

/** Where a person's answer stands: not given, or sent (until the message's deletion confirms it). */
export type ChoiceState =
  { readonly state: 'idle' } | { readonly state: 'requested'; readonly choice: RecoveryChoice };

const choiceWords: Readonly<Record<RecoveryChoice, { label: string; effect: string }>> = {
  resume: {
    label: 'Resume',
    effect: 'Continues the same agent session: the agent reloads it and your last prompt is sent again.',
  },
  start_fresh: {
    label: 'Start fresh',
    effect:
      'Opens a new agent session and sends your last prompt there; the earlier conversation is left behind.',
  },
};

/**
 * The manual recovery message (CUR-33, NOT-41): its words from the service, and both choices with what each
 * does. Only the person chooses: nothing here picks one for them, and a viewer sees the choices without buttons.
 */
export function RecoveryChoiceCard(props: {
  readonly message: MessageDoc;
  readonly canChoose: boolean;
  readonly choice: ChoiceState;
  readonly onChoose: (choice: RecoveryChoice) => void;
}) {
  const id = props.message.id;
  const pending = props.choice.state === 'requested' ? props.choice.choice : null;
  return (
    <section className="recovery-card" aria-labelledby={`recovery-title-${id}`} data-testid="recovery-card">
      <h2 id={`recovery-title-${id}`} className="retry-card-title" tabIndex={-1}>
        Needs your choice
      </h2>
      <p>{props.message.content}</p>
      <p className="muted">
        <time dateTime={props.message.created_at}>{absoluteTime(props.message.created_at)}</time>
      </p>
      <ul className="recovery-choices">
        {recoveryChoices.map((choice) => (
          <li key={choice}>
            {props.canChoose ? (
              <button
                type="button"
                className={choice === 'resume' ? 'primary' : undefined}
                disabled={pending !== null}
                aria-describedby={`recovery-${choice}-${id}`}
                onClick={() => props.onChoose(choice)}
              >
                {pending === choice ? `${choiceWords[choice].label} requested…` : choiceWords[choice].label}
              </button>
            ) : (
              <strong>{choiceWords[choice].label}</strong>
            )}
            <p id={`recovery-${choice}-${id}`} className="field-hint">
              {choiceWords[choice].effect}
            </p>
          </li>
        ))}
      </ul>
      {!props.canChoose && <p className="muted">An operator chooses one of these.</p>}
    </section>
  );
}
