import type { ClassName } from './policy-form.js';

/** Each class in visible words with concrete examples (UI-02, UI-03: never only a tooltip). */
export const classTitles: Readonly<Record<ClassName, string>> = {
  transient: 'Transient errors',
  hard: 'Hard errors',
};

export function ClassExplanation(props: { readonly cls: ClassName }) {
  return props.cls === 'transient' ? (
    <p className="class-explain">
      Short-lived trouble that often clears by itself: the provider is <strong>overloaded (529)</strong>,{' '}
      <strong>rate limited (429)</strong>, often with a Retry-After time, the <strong>stream was cut</strong>{' '}
      mid-turn, or the request <strong>timed out</strong>. A retry of the same candidate after a pause usually
      works.
    </p>
  ) : (
    <p className="class-explain">
      Trouble a quick retry will not fix: a <strong>usage or plan limit</strong> reached until a reset time,{' '}
      <strong>invalid or expired credentials</strong>, a <strong>model that was not found</strong>, or a{' '}
      <strong>billing or credit balance</strong> problem. Waiting for the reset, or moving to the next
      candidate, is usually the way out.
    </p>
  );
}

/** Why a reset time may not be waited for (UI-06), beside the reset waiting controls. */
export function ResetWaitingNote() {
  return (
    <p className="field-hint reset-note">
      Reset waiting applies only when the provider gives a <strong>trusted reset time in the future</strong>{' '}
      that is <strong>within the maximum wait</strong>. A reset time that is missing, untrusted, already past
      or further away is not waited for: the retries, then the outcome below, apply instead.
    </p>
  );
}
