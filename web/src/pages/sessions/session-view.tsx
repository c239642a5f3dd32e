import { useCallback, useEffect, useRef, useState } from 'react';
import { api, ApiError, query } from '../../api.js';
import { absoluteTime } from '../../format.js';
import { live } from '../../live/events.js';
import { useLiveEvents, useResource } from '../../live/hooks.js';
import { Link, pathOf } from '../../router.js';
import { mayOperate, useMe } from '../../session.js';
import { useAnnounce } from '../../ui/announcer.js';
import { refocusIfLost } from '../../ui/refocus.js';
import { currentNoticeId, isNotice, isRecoveryMessage, retryCardModel } from './notice-model.js';
import { RecoveryChoiceCard, type ChoiceState, type RecoveryChoice } from './recovery-choice.js';
import { RetryCard, type CancelAccess, type CancelState } from './retry-card.js';
import { sessionStateWords } from './session-words.js';
import type { MessageDoc, SessionKey } from './session-types.js';
import { emptyTranscript, inOrder, withEvent, withLoaded, type Transcript } from './transcript-store.js';

/** `GET /v1/sessions/ID?task_id=`: the session (its owner names who Cancel acts for) and its route, if any. */
interface SessionDoc {
  readonly session?: {
    readonly owner?: string;
    readonly profile_id?: string;
    readonly route_id?: string | null;
  };
  readonly owner?: string;
  readonly profile_id?: string;
  readonly route_id?: string | null;
  readonly route?: { readonly id: string; readonly state: string; readonly outcome: string } | null;
}

const sessionPath = (key: SessionKey, tail = '') => `${pathOf('v1', 'sessions', key.sessionId)}${tail}`;

/** A refusal in words the person can act on (never a raw status). */
function refusalWords(error: unknown, notFound: string): string {
  if (!(error instanceof ApiError)) return 'The request failed.';
  if (error.status === 404) return notFound;
  if (error.status === 403) return 'Your role may not do this.';
  if (error.status === 0) return error.message;
  return `The service refused: ${error.message}`;
}

/**
 * One task session: the transcript, live by message id, with the inline retry card for the session's notice and
 * the manual recovery message with its choices. The route in the store owns the retry (NOT-04): the card only
 * mirrors the notice the service writes, and it goes when the service deletes it.
 */
export function SessionView(props: { readonly sessionKey: SessionKey }) {
  const key = props.sessionKey;
  const me = useMe();
  const canAct = mayOperate(me);
  const announce = useAnnounce();
  const session = useResource<SessionDoc>(
    `session:${key.taskId}:${key.sessionId}`,
    async () => (await api<SessionDoc>('GET', sessionPath(key, query({ task_id: key.taskId })))).body,
  );
  const [transcript, setTranscript] = useState<Transcript>(emptyTranscript);
  const [loadProblem, setLoadProblem] = useState<string | null>(null);
  const [round, setRound] = useState(0);
  const [cancel, setCancel] = useState<CancelState>({ state: 'idle' });
  const [choice, setChoice] = useState<ChoiceState>({ state: 'idle' });
  const [result, setResult] = useState<string | null>(null);
  const [problem, setProblem] = useState<string | null>(null);

  const reloadMessages = useCallback(() => setRound((r) => r + 1), []);
  useEffect(() => live.onReload(reloadMessages), [reloadMessages]);
  const messagesPath = sessionPath(key, `/messages${query({ task_id: key.taskId })}`);
  useEffect(() => {
    let current = true;
    api<{ messages: MessageDoc[] }>('GET', messagesPath).then(
      ({ body }) => {
        if (!current) return;
        setTranscript((t) => withLoaded(t, body.messages));
        setLoadProblem(null);
      },
      (error: unknown) => {
        if (current)
          setLoadProblem(refusalWords(error, 'There is no such task session (or it was deleted).'));
      },
    );
    return () => {
      current = false;
    };
  }, [messagesPath, round]);

  const routeId =
    session.data?.route?.id ?? session.data?.session?.route_id ?? session.data?.route_id ?? null;
  useLiveEvents((event) => {
    if (event.type.startsWith('session.message.')) {
      setTranscript((t) => withEvent(t, key, event.type, event.data));
    } else if (event.type === 'route.transition' && routeId !== null) {
      const route = event.data.route as { id?: unknown } | undefined;
      if (route?.id === routeId) session.reload();
    }
  });

  const messages = inOrder(transcript);
  const noticeId = currentNoticeId(messages);
  const notice = messages.find((m) => m.id === noticeId) ?? null;
  const card = notice === null ? null : retryCardModel(notice);
  const recoveryIds = messages.filter(isRecoveryMessage).map((m) => m.id);
  const transcriptTitle = useRef<HTMLHeadingElement>(null);
  useTransitionsAnnounced(transcript.loaded, card, recoveryIds, cancel, choice, announce, {
    onNoticeGone: () => {
      setCancel({ state: 'idle' });
      // The card took the focused Cancel with it: keep a keyboard user in the transcript, at the choice if it
      // is there already (its buttons come next either way), not at the top of the document.
      requestAnimationFrame(() => {
        if (document.activeElement !== null && document.activeElement !== document.body) return;
        const page = transcriptTitle.current?.parentElement;
        const choiceTitle = page?.querySelector<HTMLElement>('.recovery-card h2') ?? null;
        (choiceTitle ?? transcriptTitle.current)?.focus();
      });
    },
    onRecoveryGone: () => {
      setChoice({ state: 'idle' });
      // The card took the pressed Resume or Start fresh with it: keep a keyboard user in the transcript.
      refocusIfLost(() => transcriptTitle.current);
    },
  });

  const owner = session.data?.session?.owner ?? session.data?.owner ?? null;
  const cancelAccess: CancelAccess = !canAct
    ? 'no'
    : owner !== null
      ? 'yes'
      : session.error === null
        ? 'pending'
        : 'unavailable';
  const doCancel = async () => {
    if (owner === null) return;
    setCancel({ state: 'requested' });
    setResult(null);
    try {
      const { body } = await api<{ active: boolean }>('POST', sessionPath(key, '/retry/cancel'), {
        task_id: key.taskId,
        owner,
      });
      if (!body.active) {
        // NOT-42: the loop had already ended; the service only cleared its notice.
        setResult('The retry had already ended: its notice was cleared and nothing else changed.');
      }
    } catch (error) {
      setCancel({
        state: 'failed',
        message: refusalWords(error, 'This session was not found: it may have been deleted.'),
      });
    }
  };
  const doChoose = async (messageId: string, picked: RecoveryChoice) => {
    setChoice({ state: 'requested', choice: picked });
    setResult(null);
    setProblem(null);
    try {
      await api('POST', sessionPath(key, '/recovery'), {
        task_id: key.taskId,
        choice: picked,
        message_id: messageId,
      });
    } catch (error) {
      const words =
        error instanceof ApiError && error.status === 404
          ? 'This choice was already answered (in another tab or by another person): nothing more was sent.'
          : error instanceof ApiError && error.status === 409
            ? `The session no longer needs this choice: ${error.message}`
            : refusalWords(error, 'This session was not found.');
      // Said at the page's level: the reload that follows may take the message (and its card) away.
      setChoice({ state: 'idle' });
      setProblem(words);
      reloadMessages();
      session.reload();
    }
  };

  const profile = session.data?.session?.profile_id ?? session.data?.profile_id ?? null;
  const route = session.data?.route ?? null;
  return (
    <section className="session-page">
      <p>
        <Link href="/sessions">← All sessions</Link>
      </p>
      <h1>Session {key.sessionId}</h1>
      <dl className="facts">
        <dt>Task</dt>
        <dd>{key.taskId}</dd>
        <dt>Owner</dt>
        <dd>{owner ?? 'not known'}</dd>
        <dt>Profile</dt>
        <dd>{profile ?? 'not known'}</dd>
        <dt>Now</dt>
        <dd data-testid="session-now">
          {route === null
            ? session.data !== null
              ? 'No route'
              : session.error === null
                ? 'Loading…'
                : 'Not known'
            : sessionStateWords(route.state, route.outcome)}
          {routeId !== null && (
            <>
              {' · '}
              <Link href={pathOf('routes', routeId)}>Open the route</Link>
            </>
          )}
        </dd>
      </dl>
      {session.error !== null && (
        <p className="banner error" role="alert">
          {refusalWords(session.error, 'There is no such task session (or it was deleted).')}
        </p>
      )}
      {problem !== null && (
        <p className="banner error" role="alert" data-testid="session-problem">
          {problem}
        </p>
      )}
      {result !== null && (
        <p className="banner info" data-testid="session-result">
          {result}
        </p>
      )}
      <h2 ref={transcriptTitle} tabIndex={-1}>
        Transcript
      </h2>
      {loadProblem !== null && (
        <p className="banner error" role="alert">
          The transcript could not be loaded: {loadProblem}
        </p>
      )}
      {!transcript.loaded && loadProblem === null && <p>Loading the transcript…</p>}
      {transcript.loaded && messages.length === 0 && <p>No messages yet.</p>}
      <ol className="transcript">
        {messages.map((message) => {
          if (isNotice(message)) {
            // One card per session (NOT-01): an older duplicate the service has not deleted yet is not shown.
            if (card === null || message.id !== card.messageId) return null;
            return (
              <li key={message.id}>
                <RetryCard
                  card={card}
                  canCancel={cancelAccess}
                  cancel={cancel}
                  onCancel={() => void doCancel()}
                />
              </li>
            );
          }
          if (isRecoveryMessage(message))
            return (
              <li key={message.id}>
                <RecoveryChoiceCard
                  message={message}
                  canChoose={canAct}
                  choice={choice}
                  onChoose={(picked) => void doChoose(message.id, picked)}
                />
              </li>
            );
          return (
            <li key={message.id} className="transcript-message">
              <p className="muted">
                {message.kind} · <time dateTime={message.created_at}>{absoluteTime(message.created_at)}</time>
              </p>
              <p>{message.content}</p>
            </li>
          );
        })}
      </ol>
    </section>
  );
}

/**
 * Announces the transitions (never the ticks) in the one status region: a card appeared or moved to the next
 * attempt, a retry was cancelled or ended, a choice was confirmed. Nothing is announced for the first load.
 */
function useTransitionsAnnounced(
  loaded: boolean,
  card: ReturnType<typeof retryCardModel> | null,
  recoveryIds: readonly string[],
  cancel: CancelState,
  choice: ChoiceState,
  announce: (text: string) => void,
  on: { readonly onNoticeGone: () => void; readonly onRecoveryGone: () => void },
): void {
  const seen = useRef<{ attempt: string | null; recovery: string; ready: boolean; cancelled: boolean }>({
    attempt: null,
    recovery: '',
    ready: false,
    cancelled: false,
  });
  const attempt = card === null ? null : `${card.messageId}:${card.attempt ?? '?'}`;
  const recovery = recoveryIds.join(',');
  useEffect(() => {
    const before = seen.current;
    seen.current = { attempt, recovery, ready: loaded, cancelled: before.cancelled };
    if (!loaded || !before.ready) return;
    if (attempt !== before.attempt) {
      if (card !== null)
        announce(
          `Retrying automatically${card.attempt !== null && card.maxAttempts !== null ? `: attempt ${card.attempt} of ${card.maxAttempts}` : ''}.`,
        );
      else {
        const cancelled = cancel.state === 'requested';
        announce(cancelled ? 'Retry cancelled. Choose Resume or Start fresh.' : 'The retry has ended.');
        // The recovery message that a Cancel writes is then already announced by these words.
        seen.current.cancelled = cancelled;
        on.onNoticeGone();
      }
    }
    if (recovery !== before.recovery) {
      const gone = before.recovery.split(',').filter((id) => id !== '' && !recoveryIds.includes(id));
      if (gone.length > 0) {
        announce(
          choice.state === 'requested'
            ? `${choice.choice === 'resume' ? 'Resume' : 'Start fresh'} confirmed: the next attempt is on its way.`
            : 'The recovery choice was answered.',
        );
        on.onRecoveryGone();
      } else if (recoveryIds.length > 0 && !seen.current.cancelled) {
        announce('The session needs your choice: Resume or Start fresh.');
      }
      seen.current.cancelled = false;
    }
  });
}
