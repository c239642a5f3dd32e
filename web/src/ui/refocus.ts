/**
 * Puts a keyboard user back in place after the control they pressed was disabled or removed (a request in
 * flight, a card that went away): Chromium then leaves the focus on the page body, the top of the document.
 * `target` (a section's title with `tabIndex={-1}`, or the control itself once enabled again) gets the focus on the
 * next frame, and only if the focus is still lost: a person who moved on meanwhile keeps their place.
 */
export function refocusIfLost(target: () => HTMLElement | null | undefined): void {
  requestAnimationFrame(() => {
    const focused = document.activeElement;
    // A button disabled in this frame still holds the focus until Chromium's next rendering step drops it.
    const lost =
      focused === null || focused === document.body || (focused as { disabled?: unknown }).disabled === true;
    if (lost) target()?.focus();
  });
}
