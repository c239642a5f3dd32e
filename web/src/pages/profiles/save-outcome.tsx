import type { DynamicProfile } from '../../../../src/core/policy/index.js';
import { Disclosure } from '../../ui/disclosure.js';

/** What the last save did: only a save the server accepted says "Saved" (a rejected save never claims success). */
export type SaveOutcome =
  | { readonly kind: 'idle' }
  | { readonly kind: 'saving' }
  | {
      readonly kind: 'saved';
      readonly profile: DynamicProfile;
      /** The form was edited while the save travelled: it keeps those edits, unsaved. */
      readonly editedSince?: true;
    }
  | {
      readonly kind: 'invalid';
      readonly count: number;
      readonly general: readonly string[];
      readonly server: boolean;
    }
  | {
      readonly kind: 'conflict';
      readonly current: DynamicProfile | null;
      readonly changes: readonly string[];
      readonly edited: number;
    }
  | { readonly kind: 'failed'; readonly message: string };

export function SaveBanner(props: { readonly outcome: SaveOutcome; readonly onLoadCurrent: () => void }) {
  const o = props.outcome;
  switch (o.kind) {
    case 'idle':
    case 'saving':
      return null;
    case 'saved':
      return (
        <div className="banner ok" data-testid="save-outcome">
          <p>
            <strong>Saved.</strong> The service stored version {o.profile.version};{' '}
            {o.editedSince === true
              ? 'the edits you made while it was saving are not saved yet.'
              : 'the form shows it as stored.'}
          </p>
          <Disclosure summary="The stored document">
            <pre data-testid="saved-document">{JSON.stringify(o.profile, null, 2)}</pre>
          </Disclosure>
        </div>
      );
    case 'invalid':
      return (
        <div className="banner error" role="alert" data-testid="save-outcome">
          <p>
            <strong>Not saved.</strong> {o.server ? 'The service refused it: ' : ''}
            {o.count === 1 ? '1 problem' : `${o.count} problems`} to fix
            {o.general.length === o.count ? ':' : ', shown beside their fields.'}
          </p>
          {o.general.length === 0 ? null : (
            <ul>
              {o.general.map((g) => (
                <li key={g}>{g}</li>
              ))}
            </ul>
          )}
        </div>
      );
    case 'conflict':
      return (
        <div className="banner warn" role="alert" data-testid="save-outcome">
          {o.current === null ? (
            <p>
              <strong>Not saved.</strong> This profile was deleted after you opened version {o.edited}.
            </p>
          ) : (
            <>
              <p>
                <strong>Not saved: someone else saved version {o.current.version}</strong> while you edited
                version {o.edited}. What they changed:
              </p>
              {o.changes.length === 0 ? (
                <p>Nothing in the policies (only the version number moved).</p>
              ) : (
                <ul data-testid="conflict-changes">
                  {o.changes.map((c) => (
                    <li key={c}>{c}</li>
                  ))}
                </ul>
              )}
              <div className="actions">
                <button type="button" className="primary" onClick={props.onLoadCurrent}>
                  Load version {o.current.version} (discards your edits)
                </button>
              </div>
            </>
          )}
        </div>
      );
    case 'failed':
      return (
        <div className="banner error" role="alert" data-testid="save-outcome">
          <p>
            <strong>Not saved.</strong> {o.message}
          </p>
        </div>
      );
    default: {
      const never: never = o;
      return never;
    }
  }
}
