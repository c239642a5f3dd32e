import { createContext, useCallback, useContext, useState, type ReactNode } from 'react';

/**
 * The page's one `role="status"` region: it announces transitions ("Route r-12 is waiting to retry"), never the
 * ticking countdowns (those are `role="timer"`, which screen readers do not read out on every tick).
 */
const AnnounceContext = createContext<(text: string) => void>(() => undefined);

export function AnnouncerProvider(props: { readonly children: ReactNode }) {
  const [text, setText] = useState('');
  const announce = useCallback((next: string) => {
    // Clearing first makes a repeated message be read again.
    setText('');
    requestAnimationFrame(() => setText(next));
  }, []);
  return (
    <AnnounceContext.Provider value={announce}>
      {props.children}
      <div role="status" aria-live="polite" className="visually-hidden" data-testid="announcer">
        {text}
      </div>
    </AnnounceContext.Provider>
  );
}

export function useAnnounce(): (text: string) => void {
  return useContext(AnnounceContext);
}
