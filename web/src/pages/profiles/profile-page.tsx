import { useEffect, useMemo, useRef, useState } from 'react';
import type { DynamicProfile } from '../../../../src/core/policy/index.js';
import { api, ApiError } from '../../api.js';
import { useResource } from '../../live/hooks.js';
import { Link } from '../../router.js';
import { mayAdminister, useMe } from '../../session.js';
import { useAnnounce } from '../../ui/announcer.js';
import { refocusIfLost } from '../../ui/refocus.js';
import { CandidateRow } from './candidate-row.js';
import { profileChanges } from './conflict-diff.js';
import { classNames, fieldPath, formOf, type ClassField, type ProfileForm } from './policy-form.js';
import { checkForm, readable } from './policy-validation.js';
import { SaveBanner, type SaveOutcome } from './save-outcome.js';

/**
 * `/profiles/ID`: the policy editor (UI-01 to UI-10). The form edits one loaded version; Save sends the normalized
 * version 1 document with `If-Match` of that version, so a save over someone else's is a 409 that shows their
 * changes instead of overwriting them. Viewers and operators see the same policies without controls.
 */
export function ProfilePage(props: { readonly id: string }) {
  const me = useMe();
  const editable = mayAdminister(me);
  const path = `/v1/profiles/${encodeURIComponent(props.id)}`;
  const resource = useResource(
    `profile:${props.id}`,
    async () => (await api<DynamicProfile>('GET', path)).body,
  );
  const announce = useAnnounce();
  const [base, setBase] = useState<DynamicProfile | null>(null);
  const [form, setForm] = useState<ProfileForm | null>(null);
  const [serverIssues, setServerIssues] = useState<ReadonlyMap<string, string>>(new Map());
  const [outcome, setOutcome] = useState<SaveOutcome>({ kind: 'idle' });
  // The form as it is now, for a save's reply: what was typed while the request travelled is not the saved copy.
  const latestForm = useRef(form);
  latestForm.current = form;
  const saveButton = useRef<HTMLButtonElement>(null);

  const dirty = base !== null && form !== null && JSON.stringify(form) !== JSON.stringify(formOf(base));
  // A newer copy from a reload replaces the form only while the user has not edited it.
  useEffect(() => {
    const loaded = resource.data;
    if (loaded === null || (dirty && base?.id === loaded.id)) return;
    setBase(loaded);
    setForm(formOf(loaded));
    // eslint-disable-next-line react-hooks/exhaustive-deps -- only a new load adopts; editing must not reset it
  }, [resource.data]);

  const check = useMemo(() => (form === null ? null : checkForm(form)), [form]);

  if (resource.error !== null && base === null) {
    const notFound = resource.error instanceof ApiError && resource.error.status === 404;
    return (
      <section>
        <h1>Profile</h1>
        <div className="banner error" role="alert">
          <p>
            {notFound
              ? 'There is no profile with this id.'
              : `The profile could not be loaded: ${resource.error.message}`}
          </p>
        </div>
        <Link href="/profiles">All profiles</Link>
      </section>
    );
  }
  if (base === null || form === null || check === null)
    return <p className="loading">Loading the profile…</p>;

  // The client's own check first; a server 422 fills in what the client did not catch.
  const issues = new Map([...serverIssues, ...check.issues]);
  const shown = shownPaths(form);

  const edit = (next: ProfileForm) => {
    setForm(next);
    setServerIssues(new Map());
    if (outcome.kind === 'saved' || outcome.kind === 'invalid') setOutcome({ kind: 'idle' });
  };

  const save = async () => {
    if (check.profile === null) {
      const general = [...check.issues].filter(([p]) => !shown.has(p)).map(([p, m]) => generalText(p, m));
      setOutcome({ kind: 'invalid', count: check.issues.size, general, server: false });
      announce(`Not saved: ${check.issues.size} problems to fix`);
      return;
    }
    setOutcome({ kind: 'saving' });
    try {
      const { body } = await api<DynamicProfile>(
        'PUT',
        path,
        { ...check.profile, version: base.version },
        { 'if-match': `"${base.version}"` },
      );
      const editedSince = latestForm.current !== form;
      setBase(body);
      if (!editedSince) setForm(formOf(body));
      setServerIssues(new Map());
      setOutcome({ kind: 'saved', profile: body, ...(editedSince ? { editedSince } : {}) });
      announce(
        `Saved version ${body.version}${editedSince ? '; the edits made since are not saved yet' : ''}`,
      );
    } catch (error) {
      setOutcome(refusal(error, base, shown, setServerIssues));
      announce('Not saved');
    }
    // Save was disabled while the request travelled, which left a keyboard user's focus on the page body.
    refocusIfLost(() => saveButton.current);
  };

  const loadCurrent = () => {
    if (outcome.kind !== 'conflict' || outcome.current === null) return;
    setBase(outcome.current);
    setForm(formOf(outcome.current));
    setServerIssues(new Map());
    setOutcome({ kind: 'idle' });
    announce(`Loaded version ${outcome.current.version}`);
    refocusIfLost(() => saveButton.current); // the banner took the pressed button with it
  };

  const nameIssue = issues.get('/name');
  return (
    <section className="profile-page">
      <p className="breadcrumbs">
        <Link href="/profiles">All profiles</Link>
      </p>
      <h1>{form.name.trim() === '' ? base.name : form.name}</h1>
      <p className="muted">
        Profile <code>{base.id}</code>, version {base.version}
        {dirty ? ' · unsaved changes' : ''}
        {editable ? '' : ' · read-only: your role may not edit policies'}
      </p>
      {editable ? (
        <div className="field">
          <label htmlFor="profile-name">Name</label>
          <input
            id="profile-name"
            type="text"
            value={form.name}
            maxLength={400}
            onChange={(e) => edit({ ...form, name: e.target.value })}
            aria-invalid={nameIssue === undefined ? undefined : true}
            aria-describedby={nameIssue === undefined ? undefined : 'profile-name-error'}
          />
          {nameIssue === undefined ? null : (
            <p className="field-error" id="profile-name-error">
              {nameIssue}
            </p>
          )}
        </div>
      ) : null}
      <h2>Candidates, in the order a route tries them</h2>
      <ol className="candidate-list">
        {form.candidates.map((candidate, index) => (
          <CandidateRow
            key={candidate.profile_id}
            index={index}
            count={form.candidates.length}
            value={candidate}
            issues={issues}
            readOnly={!editable}
            initiallyOpen={form.candidates.length === 1}
            onChange={(next) =>
              edit({ ...form, candidates: form.candidates.map((c, i) => (i === index ? next : c)) })
            }
            onMove={(by) => {
              const order = [...form.candidates];
              const [moved] = order.splice(index, 1);
              order.splice(index + by, 0, moved!);
              edit({ ...form, candidates: order });
              announce(`${moved!.profile_id} is now ${index + by + 1} of ${order.length}`);
            }}
          />
        ))}
      </ol>
      {issues.get('/candidates') === undefined ? null : (
        <p className="field-error">{issues.get('/candidates')}</p>
      )}
      <SaveBanner outcome={outcome} onLoadCurrent={loadCurrent} />
      {editable ? (
        <div className="actions save-bar">
          <button
            ref={saveButton}
            type="button"
            className="primary"
            disabled={outcome.kind === 'saving'}
            onClick={() => void save()}
          >
            {outcome.kind === 'saving' ? 'Saving…' : 'Save'}
          </button>
          <button
            type="button"
            disabled={!dirty || outcome.kind === 'saving'}
            onClick={() => {
              edit(formOf(base));
              announce('Edits discarded');
              refocusIfLost(() => saveButton.current); // with nothing to discard, this button is disabled
            }}
          >
            Discard edits
          </button>
          {check.issues.size === 0 ? null : (
            <p className="field-error" data-testid="invalid-count">
              {check.issues.size === 1 ? '1 field is' : `${check.issues.size} fields are`} invalid.
            </p>
          )}
        </div>
      ) : null}
    </section>
  );
}

/** Every JSON pointer that has a control on the page (its message shows there). */
function shownPaths(form: ProfileForm): Set<string> {
  const shown = new Set<string>(['/name']);
  const fields: ClassField[] = [
    'retryEnabled',
    'maxRetries',
    'initialInterval',
    'waitEnabled',
    'maxWait',
    'onExhausted',
  ];
  form.candidates.forEach((_, i) => {
    shown.add(`/candidates/${i}/enabled`);
    for (const cls of classNames) for (const f of fields) shown.add(fieldPath(i, cls, f));
  });
  return shown;
}

function generalText(path: string, message: string): string {
  return path === '' ? message : `${path}: ${message}`;
}

/** A refused save, in the page's terms; 422 paths go beside the same fields the client check uses. */
function refusal(
  error: unknown,
  base: DynamicProfile,
  shown: ReadonlySet<string>,
  setServerIssues: (issues: ReadonlyMap<string, string>) => void,
): SaveOutcome {
  if (!(error instanceof ApiError)) return { kind: 'failed', message: String(error) };
  if (error.status === 409 && error.code === 'version_conflict') {
    const current = (error.body.current ?? null) as DynamicProfile | null;
    return {
      kind: 'conflict',
      current,
      changes: current === null ? [] : profileChanges(base, current),
      edited: base.version,
    };
  }
  if (error.status === 422 && error.issues.length > 0) {
    const map = new Map<string, string>();
    for (const issue of error.issues) if (!map.has(issue.path)) map.set(issue.path, readable(issue.message));
    setServerIssues(map);
    const general = [...map].filter(([p]) => !shown.has(p)).map(([p, m]) => generalText(p, m));
    return { kind: 'invalid', count: map.size, general, server: true };
  }
  if (error.status === 403) return { kind: 'failed', message: 'Your role may not edit profiles.' };
  return { kind: 'failed', message: error.message };
}
