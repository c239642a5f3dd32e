import { useState, type FormEvent } from 'react';
import {
  dynamicProfileSchema,
  previewSchedule,
  type DynamicProfile,
} from '../../../../src/core/policy/index.js';
import { api, ApiError } from '../../api.js';
import { useResource } from '../../live/hooks.js';
import { Link, navigate, pathOf } from '../../router.js';
import { mayAdminister, useMe } from '../../session.js';
import { useAnnounce } from '../../ui/announcer.js';
import { readable } from './policy-validation.js';
import { candidateSummary } from './schedule-words.js';

interface ProfileList {
  readonly profiles: ReadonlyArray<{ readonly id: string; readonly name: string; readonly version: number }>;
}

/**
 * `/profiles`: every dynamic profile with a one-line summary per candidate, each linking to its editor. The list
 * endpoint names profiles only, so each profile is read for its summaries.
 */
export function ProfilesPage() {
  const me = useMe();
  const resource = useResource('profiles', async () => {
    const { body } = await api<ProfileList>('GET', '/v1/profiles');
    return Promise.all(
      body.profiles.map(async (p) => {
        try {
          return (await api<DynamicProfile>('GET', `/v1/profiles/${encodeURIComponent(p.id)}`)).body;
        } catch {
          return { ...p, candidates: [] } satisfies DynamicProfile; // deleted in between, or no longer valid
        }
      }),
    );
  });
  return (
    <section className="profiles-page">
      <h1>Profiles</h1>
      <p className="muted">
        A profile lists candidates in the order a route tries them; each candidate has its own policy for
        transient and hard errors.
      </p>
      {resource.error !== null ? (
        <div className="banner error" role="alert">
          <p>The profiles could not be loaded: {resource.error.message}</p>
        </div>
      ) : resource.data === null ? (
        <p className="loading">Loading profiles…</p>
      ) : resource.data.length === 0 ? (
        <p>There are no profiles yet.</p>
      ) : (
        <ul className="profile-list">
          {resource.data.map((profile) => (
            <li key={profile.id} className="card">
              <h2>
                <Link href={pathOf('profiles', profile.id)}>{profile.name}</Link>
              </h2>
              <p className="muted">
                <code>{profile.id}</code> · version {profile.version}
              </p>
              <ol className="candidate-summaries">
                {profile.candidates.map((c) => (
                  <li key={c.profile_id}>
                    <strong>{c.profile_id}</strong>
                    {c.enabled ? '' : ' (disabled)'}: {candidateSummary(previewSchedule(c.policy))}
                  </li>
                ))}
              </ol>
            </li>
          ))}
        </ul>
      )}
      {mayAdminister(me) ? <CreateProfile /> : null}
    </section>
  );
}

/** An admin creates a profile with one candidate (immediate skip for both classes), then edits it. */
function CreateProfile() {
  const announce = useAnnounce();
  const [values, setValues] = useState({ id: '', name: '', candidate: '' });
  const [issues, setIssues] = useState<ReadonlyMap<string, string>>(new Map());
  const [failure, setFailure] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    const document = {
      id: values.id.trim(),
      name: values.name,
      candidates: [{ profile_id: values.candidate.trim() }],
    };
    const checked = dynamicProfileSchema.safeParse(document);
    if (!checked.success) {
      const map = new Map<string, string>();
      for (const issue of checked.error.issues) {
        const key = fieldOf(`/${issue.path.map(String).join('/')}`);
        if (!map.has(key)) map.set(key, readable(issue.message));
      }
      setIssues(map);
      setFailure(null);
      return;
    }
    setIssues(new Map());
    setBusy(true);
    try {
      // version 0: create only; an existing profile of this id is a 409, never overwritten.
      await api('PUT', `/v1/profiles/${encodeURIComponent(checked.data.id)}`, {
        ...checked.data,
        version: 0,
      });
      announce(`Created profile ${checked.data.id}`);
      navigate(pathOf('profiles', checked.data.id));
    } catch (error) {
      if (error instanceof ApiError && error.status === 409)
        setFailure(`A profile with the id ${checked.data.id} already exists. Pick another id.`);
      else if (error instanceof ApiError && error.issues.length > 0) {
        setIssues(new Map(error.issues.map((i) => [fieldOf(i.path), readable(i.message)])));
        setFailure('The service refused it: see the fields above.');
      } else setFailure(error instanceof Error ? error.message : String(error));
    } finally {
      setBusy(false);
    }
  };

  const field = (key: 'id' | 'name' | 'candidate', label: string, hint: string) => {
    const id = `new-profile-${key}`;
    const issue = issues.get(key);
    return (
      <div className="field">
        <label htmlFor={id}>{label}</label>
        <input
          id={id}
          type="text"
          autoComplete="off"
          value={values[key]}
          onChange={(e) => setValues({ ...values, [key]: e.target.value })}
          aria-invalid={issue === undefined ? undefined : true}
          aria-describedby={`${id}-hint${issue === undefined ? '' : ` ${id}-error`}`}
        />
        <p className="field-hint" id={`${id}-hint`}>
          {hint}
        </p>
        {issue === undefined ? null : (
          <p className="field-error" id={`${id}-error`}>
            {issue}
          </p>
        )}
      </div>
    );
  };

  return (
    <form className="card create-profile" onSubmit={(e) => void submit(e)} noValidate>
      <h2>New profile</h2>
      {field('id', 'Id', 'Letters, digits and . _ : @ / -, such as team-default.')}
      {field('name', 'Name', 'What people see, such as Team default.')}
      {field(
        'candidate',
        'First candidate',
        'The concrete profile it runs first, such as claude-code. It starts with immediate skip for both classes; add retries in the editor.',
      )}
      {failure === null ? null : (
        <p className="field-error" role="alert">
          {failure}
        </p>
      )}
      <div className="actions">
        <button type="submit" className="primary" disabled={busy}>
          Create profile
        </button>
      </div>
    </form>
  );
}

function fieldOf(path: string): string {
  if (path === '/id') return 'id';
  if (path === '/name') return 'name';
  return 'candidate';
}
