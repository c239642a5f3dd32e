import { useEffect, useState, type MouseEvent, type ReactNode } from 'react';

/**
 * Client-side paths (the service answers index.html on each): `/routes`, `/routes/ID`, `/sessions`,
 * `/sessions/ID?task_id=`, `/profiles`, `/profiles/ID`, `/plans`, `/plans/ID`, `/sign-in`. The phone and the
 * desktop use the same paths (UI-10): a layout never has its own address.
 */
const listeners = new Set<() => void>();

export function navigate(to: string, options: { replace?: boolean } = {}): void {
  if (options.replace === true) window.history.replaceState(null, '', to);
  else window.history.pushState(null, '', to);
  for (const listener of listeners) listener();
}

export interface Location {
  readonly path: string;
  readonly segments: readonly string[];
  readonly search: URLSearchParams;
}

function current(): Location {
  const path = window.location.pathname;
  return {
    path,
    segments: path
      .split('/')
      .filter((s) => s !== '')
      .map((s) => {
        try {
          return decodeURIComponent(s);
        } catch {
          return s;
        }
      }),
    search: new URLSearchParams(window.location.search),
  };
}

export function useLocation(): Location {
  const [location, setLocation] = useState(current);
  useEffect(() => {
    const update = () => setLocation(current());
    listeners.add(update);
    window.addEventListener('popstate', update);
    return () => {
      listeners.delete(update);
      window.removeEventListener('popstate', update);
    };
  }, []);
  return location;
}

/** A real link (it opens in a new tab, is keyboard reachable) that navigates in place on a plain click. */
export function Link(props: {
  readonly href: string;
  readonly children: ReactNode;
  readonly className?: string;
  readonly current?: boolean;
}) {
  const onClick = (event: MouseEvent<HTMLAnchorElement>) => {
    if (event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
    event.preventDefault();
    navigate(props.href);
  };
  return (
    <a
      href={props.href}
      className={props.className}
      onClick={onClick}
      aria-current={props.current === true ? 'page' : undefined}
    >
      {props.children}
    </a>
  );
}

/** Path segments for a link: each part encoded. */
export function pathOf(...parts: readonly string[]): string {
  return `/${parts.map(encodeURIComponent).join('/')}`;
}
