import { classSchedule } from '../../../../src/core/policy/index.js';
import { previewPolicyOf, type ClassForm, type ClassName } from './policy-form.js';
import { outcomeWords, scheduleWords } from './schedule-words.js';

/**
 * The schedule a class's current values imply (UI-05), recomputed on every keystroke by `classSchedule`, the
 * function `recourse policy preview` uses. While a part is invalid the rest is still shown and the gap is named.
 * The data attributes carry the same numbers for tests comparing them with the CLI.
 */
export function SchedulePreview(props: {
  readonly cls: ClassName;
  readonly value: ClassForm;
  readonly id: string;
}) {
  const { policy, missing } = previewPolicyOf(props.value);
  const schedule = classSchedule(policy);
  const words = scheduleWords(schedule);
  return (
    <div
      className="schedule-preview"
      id={props.id}
      data-testid={`schedule-${props.cls}`}
      data-delays={schedule.delays_seconds.join(',')}
      data-max-wait={schedule.max_wait_seconds}
      data-outcome={schedule.on_exhausted}
    >
      <p className="schedule-title">What happens</p>
      {missing.includes('wait') ? (
        <p className="muted">The reset waiting will show here once Maximum wait is valid.</p>
      ) : words.reset === null ? null : (
        <p>{words.reset}</p>
      )}
      {/* An invalid retry part is named, never shown as "no retry". */}
      {missing.includes('retry') ? (
        <p className="muted">
          The retries will show here once Maximum retries and Initial interval are valid; after them,{' '}
          {outcomeWords(schedule.on_exhausted)}.
        </p>
      ) : (
        <p>{words.retries}</p>
      )}
    </div>
  );
}
