import { useId, useState, type ReactNode } from 'react';

/**
 * A button that shows and hides a region (`aria-expanded`, `aria-controls`): the same markup on the desktop and
 * the phone, keyboard operable, never a hover.
 */
export function Disclosure(props: {
  readonly summary: ReactNode;
  readonly children: ReactNode;
  readonly initiallyOpen?: boolean;
  readonly className?: string;
  readonly buttonLabel?: string;
}) {
  const [open, setOpen] = useState(props.initiallyOpen ?? false);
  const id = useId();
  return (
    <div className={props.className}>
      <button
        type="button"
        className="disclosure-button"
        aria-expanded={open}
        aria-controls={id}
        aria-label={props.buttonLabel}
        onClick={() => setOpen((o) => !o)}
      >
        <span>{props.summary}</span>
        <span aria-hidden="true">{open ? '▴' : '▾'}</span>
      </button>
      <div id={id} hidden={!open}>
        {props.children}
      </div>
    </div>
  );
}
