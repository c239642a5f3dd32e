import { useRef } from 'react';
import { classSchedule } from '../../../../src/core/policy/index.js';
import { Disclosure } from '../../ui/disclosure.js';
import { ClassPolicySection } from './class-policy-section.js';
import {
  classNames,
  previewPolicyOf,
  type CandidateForm,
  type ClassForm,
  type ClassName,
} from './policy-form.js';
import { candidateSummary } from './schedule-words.js';

/**
 * One candidate: its place, name, enabled state and one-line summary, and a disclosure (`aria-expanded`) opening its
 * Transient and Hard policy sections (UI-09). The phone shows the same markup in one column (UI-10, CSS only).
 */
export function CandidateRow(props: {
  readonly index: number;
  readonly count: number;
  readonly value: CandidateForm;
  readonly issues: ReadonlyMap<string, string>;
  readonly readOnly: boolean;
  readonly initiallyOpen: boolean;
  readonly onChange: (next: CandidateForm) => void;
  readonly onMove: (by: -1 | 1) => void;
}) {
  const { index, value } = props;
  const summary = candidateSummary({
    transient: classSchedule(previewPolicyOf(value.transient).policy),
    hard: classSchedule(previewPolicyOf(value.hard).policy),
  });
  const invalid = [...props.issues.keys()].filter((p) => p.startsWith(`/candidates/${index}/`)).length;
  const enabledId = `c${index}-enabled`;
  const enabledIssue = props.issues.get(`/candidates/${index}/enabled`);
  const up = useRef<HTMLButtonElement>(null);
  const down = useRef<HTMLButtonElement>(null);
  const move = (by: -1 | 1) => {
    props.onMove(by);
    // Reordering moves this row's element, and at the first or last place the pressed button is disabled: either
    // drops a keyboard user's focus to the page body. Keep it on this row's move buttons.
    // (Chromium drops the focus of a disabled button only at its next rendering step, so it may still be there.)
    requestAnimationFrame(() => {
      const pressed = by < 0 ? up.current : down.current;
      const other = by < 0 ? down.current : up.current;
      const focused = document.activeElement;
      if (focused !== null && focused !== document.body && focused !== pressed) return;
      (pressed !== null && !pressed.disabled ? pressed : other)?.focus();
    });
  };
  return (
    <li className="candidate-row" data-testid={`candidate-${index}`}>
      <div className="candidate-head">
        <p className="candidate-name" id={`c${index}-name`}>
          <span className="candidate-place">{index + 1}.</span> <strong>{value.profile_id}</strong>{' '}
          <span className={value.enabled ? 'badge on' : 'badge off'}>
            {value.enabled ? 'Enabled' : 'Disabled'}
          </span>
        </p>
        <p className="candidate-summary" data-testid="candidate-summary">
          {summary}
        </p>
        {invalid === 0 ? null : (
          <p className="field-error">
            {invalid === 1 ? '1 field needs' : `${invalid} fields need`} fixing in this candidate.
          </p>
        )}
        {props.readOnly ? null : (
          <div className="actions candidate-actions">
            <label className="check" htmlFor={enabledId}>
              <input
                id={enabledId}
                type="checkbox"
                checked={value.enabled}
                onChange={(e) => props.onChange({ ...value, enabled: e.target.checked })}
              />
              <span>Use this candidate</span>
            </label>
            <button ref={up} type="button" disabled={index === 0} onClick={() => move(-1)}>
              Move up<span className="visually-hidden"> {value.profile_id}</span>
            </button>
            <button ref={down} type="button" disabled={index === props.count - 1} onClick={() => move(1)}>
              Move down<span className="visually-hidden"> {value.profile_id}</span>
            </button>
          </div>
        )}
        {enabledIssue === undefined ? null : <p className="field-error">{enabledIssue}</p>}
      </div>
      <Disclosure
        className="candidate-policy"
        initiallyOpen={props.initiallyOpen}
        summary={`${props.readOnly ? 'Show' : 'Edit'} the policy for ${value.profile_id}`}
      >
        <div className="class-sections">
          {classNames.map((cls: ClassName) => (
            <ClassPolicySection
              key={cls}
              candidate={index}
              candidateName={value.profile_id}
              cls={cls}
              value={value[cls]}
              issues={props.issues}
              readOnly={props.readOnly}
              onChange={(next: ClassForm) => props.onChange({ ...value, [cls]: next })}
            />
          ))}
        </div>
      </Disclosure>
    </li>
  );
}
