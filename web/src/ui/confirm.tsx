import { useEffect, useRef, type ReactNode } from 'react';

/**
 * A modal question before an action that cannot be taken back (Stop; Retry now before a trusted reset). The
 * native <dialog> traps focus and closes on Escape; the safe answer has the focus first.
 */
export function ConfirmDialog(props: {
  readonly open: boolean;
  readonly title: string;
  readonly children: ReactNode;
  readonly confirmLabel: string;
  readonly onConfirm: () => void;
  readonly onCancel: () => void;
}) {
  const dialog = useRef<HTMLDialogElement>(null);
  useEffect(() => {
    const element = dialog.current;
    if (element === null) return;
    if (props.open && !element.open) element.showModal();
    if (!props.open && element.open) element.close();
  }, [props.open]);
  return (
    <dialog ref={dialog} aria-labelledby="confirm-title" onCancel={props.onCancel}>
      <h2 id="confirm-title">{props.title}</h2>
      {props.children}
      <div className="actions">
        <button type="button" autoFocus onClick={props.onCancel}>
          Keep it as it is
        </button>
        <button type="button" className="danger" onClick={props.onConfirm}>
          {props.confirmLabel}
        </button>
      </div>
    </dialog>
  );
}
