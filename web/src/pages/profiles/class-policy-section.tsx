import type { ReactNode } from 'react';
import { ClassExplanation, ResetWaitingNote, classTitles } from './class-explanations.js';
import { fieldPath, type ClassField, type ClassForm, type ClassName } from './policy-form.js';
import { SchedulePreview } from './schedule-preview.js';
import { parseDurationInput } from '../../../../src/core/time/duration-input.js';

/**
 * One class's policy for one candidate (UI-01 to UI-06): its explanation, the controls (or, read-only, the values
 * in words) and the schedule they imply. Every message the validator or the server gives for a field sits beside it.
 */
export function ClassPolicySection(props: {
  readonly candidate: number;
  /** The candidate's profile id: it names the section apart from the other candidates' sections. */
  readonly candidateName: string;
  readonly cls: ClassName;
  readonly value: ClassForm;
  readonly issues: ReadonlyMap<string, string>;
  readonly readOnly: boolean;
  readonly onChange: (next: ClassForm) => void;
}) {
  const { candidate, cls, value } = props;
  const prefix = `c${candidate}-${cls}`;
  const heading = `${prefix}-heading`;
  const issueOf = (field: ClassField) => props.issues.get(fieldPath(candidate, cls, field));
  const set = (patch: Partial<ClassForm>) => props.onChange({ ...value, ...patch });
  return (
    <section className="class-policy" aria-labelledby={heading} data-testid={`class-${cls}`}>
      <h3 id={heading}>
        {classTitles[cls]}
        <span className="visually-hidden"> for {props.candidateName}</span>
      </h3>
      <ClassExplanation cls={cls} />
      {props.readOnly ? (
        <ReadOnlyValues value={value} />
      ) : (
        <>
          <fieldset>
            <legend>Same-candidate retry</legend>
            <Check
              id={`${prefix}-retry`}
              label="Retry the same candidate"
              checked={value.retryEnabled}
              onChange={(retryEnabled) => set({ retryEnabled })}
              issue={issueOf('retryEnabled')}
            />
            <TextField
              id={`${prefix}-max-retries`}
              label="Maximum retries"
              hint="1 to 10 more attempts after the failed one."
              value={value.maxRetries}
              disabled={!value.retryEnabled}
              inputMode="numeric"
              onChange={(maxRetries) => set({ maxRetries })}
              issue={issueOf('maxRetries')}
            />
            <TextField
              id={`${prefix}-interval`}
              label="Initial interval"
              hint="1 s to 1 h, such as 5s, 2m or 1h (a plain number is seconds). Each later retry waits twice as long."
              value={value.initialInterval}
              disabled={!value.retryEnabled}
              onChange={(initialInterval) => set({ initialInterval })}
              issue={issueOf('initialInterval')}
              echo={secondsEcho(value.initialInterval)}
            />
          </fieldset>
          <fieldset>
            <legend>Reset waiting</legend>
            <Check
              id={`${prefix}-wait`}
              label="Wait for the provider's reset time"
              checked={value.waitEnabled}
              onChange={(waitEnabled) => set({ waitEnabled })}
              issue={issueOf('waitEnabled')}
            />
            <TextField
              id={`${prefix}-max-wait`}
              label="Maximum wait"
              hint="1 s to 7 d, such as 30m, 2h or 7d."
              value={value.maxWait}
              disabled={!value.waitEnabled}
              onChange={(maxWait) => set({ maxWait })}
              issue={issueOf('maxWait')}
              echo={secondsEcho(value.maxWait)}
            />
            <ResetWaitingNote />
          </fieldset>
          <fieldset
            aria-describedby={issueOf('onExhausted') === undefined ? undefined : `${prefix}-exhausted-error`}
          >
            <legend>When recovery is exhausted</legend>
            <div className="radio-row">
              <Radio
                name={`${prefix}-exhausted`}
                label="Skip candidate"
                checked={value.onExhausted === 'skip'}
                onSelect={() => set({ onExhausted: 'skip' })}
              />
              <Radio
                name={`${prefix}-exhausted`}
                label="Stop"
                checked={value.onExhausted === 'stop'}
                onSelect={() => set({ onExhausted: 'stop' })}
              />
            </div>
            <FieldError id={`${prefix}-exhausted-error`} issue={issueOf('onExhausted')} />
          </fieldset>
        </>
      )}
      <SchedulePreview cls={cls} value={value} id={`${prefix}-schedule`} />
    </section>
  );
}

/** "= 7200 s" under a duration field, so the stored number is never a guess. */
function secondsEcho(text: string): string | undefined {
  const parsed = parseDurationInput(text);
  // "90s" needs no echo; "2h" is shown as the seconds it is stored as.
  return parsed.ok && parsed.seconds > 0 && !/^\s*\d+\s*s?\s*$/i.test(text)
    ? `Stored as ${parsed.seconds} seconds.`
    : undefined;
}

function ReadOnlyValues(props: { readonly value: ClassForm }) {
  const v = props.value;
  return (
    <dl className="facts">
      <dt>Same-candidate retry</dt>
      <dd>{v.retryEnabled ? `On: up to ${v.maxRetries}, first after ${v.initialInterval}` : 'Off'}</dd>
      <dt>Reset waiting</dt>
      <dd>{v.waitEnabled ? `On: up to ${v.maxWait}` : 'Off'}</dd>
      <dt>When recovery is exhausted</dt>
      <dd>{v.onExhausted === 'skip' ? 'Skip candidate' : 'Stop'}</dd>
      {v.waitEnabled ? (
        <dd className="facts-note">
          <ResetWaitingNote />
        </dd>
      ) : null}
    </dl>
  );
}

function FieldError(props: { readonly id: string; readonly issue: string | undefined }) {
  if (props.issue === undefined) return null;
  return (
    <p className="field-error" id={props.id}>
      {props.issue}
    </p>
  );
}

function Check(props: {
  readonly id: string;
  readonly label: string;
  readonly checked: boolean;
  readonly onChange: (checked: boolean) => void;
  readonly issue: string | undefined;
}) {
  return (
    <div className="field">
      <label className="check" htmlFor={props.id}>
        <input
          id={props.id}
          type="checkbox"
          checked={props.checked}
          onChange={(e) => props.onChange(e.target.checked)}
          aria-invalid={props.issue === undefined ? undefined : true}
          aria-describedby={props.issue === undefined ? undefined : `${props.id}-error`}
        />
        <span>{props.label}</span>
      </label>
      <FieldError id={`${props.id}-error`} issue={props.issue} />
    </div>
  );
}

function TextField(props: {
  readonly id: string;
  readonly label: string;
  readonly hint: ReactNode;
  readonly value: string;
  readonly disabled: boolean;
  readonly onChange: (value: string) => void;
  readonly issue: string | undefined;
  readonly inputMode?: 'numeric';
  readonly echo?: string | undefined;
}) {
  const described = [`${props.id}-hint`, props.issue === undefined ? null : `${props.id}-error`]
    .filter((x) => x !== null)
    .join(' ');
  return (
    <div className="field">
      <label htmlFor={props.id}>{props.label}</label>
      <input
        id={props.id}
        type="text"
        autoComplete="off"
        spellCheck={false}
        inputMode={props.inputMode}
        value={props.value}
        disabled={props.disabled}
        onChange={(e) => props.onChange(e.target.value)}
        aria-invalid={props.issue === undefined ? undefined : true}
        aria-describedby={described}
      />
      <p className="field-hint" id={`${props.id}-hint`}>
        {props.disabled ? 'Turn the option above on to use this. ' : null}
        {props.hint}
        {props.echo === undefined || props.disabled ? null : ` ${props.echo}`}
      </p>
      <FieldError id={`${props.id}-error`} issue={props.issue} />
    </div>
  );
}

function Radio(props: {
  readonly name: string;
  readonly label: string;
  readonly checked: boolean;
  readonly onSelect: () => void;
}) {
  const id = `${props.name}-${props.label.replace(/\W+/g, '-').toLowerCase()}`;
  return (
    <label className="check" htmlFor={id}>
      <input id={id} type="radio" name={props.name} checked={props.checked} onChange={props.onSelect} />
      <span>{props.label}</span>
    </label>
  );
}
