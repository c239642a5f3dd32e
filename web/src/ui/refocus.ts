/**
 * Puts a keyboard user back in place after the control they pressed was disabled or removed (a request in
 * flight, a card that went away): Chromium then leaves the focus on the page body, the top of the document.
 * `target` (a section's title with `tabIndex={-1}`, or the control itself once enabled again) gets the focus on the
 * next frame, and only if the focus is still lost: a person who moved on meanwhile keeps their place.
 *
 * The target may not be ready on that frame: React commits the state that enables it again (or renders it) in a
 * task of its own, which a loaded machine can run after the frame, and a disabled button takes no focus. So a
 * target that is missing or still disabled is tried again on the following frames, a few at most.
 */
export function refocusIfLost(target: () => HTMLElement | null | undefined, framesLeft = 10): void {
  requestAnimationFrame(() => {
    const focused = document.activeElement;
    // A button disabled in this frame still holds the focus until Chromium's next rendering step drops it.
    const lost = focused === null || focused === document.body || isDisabled(focused);
    if (!lost) return;
    const element = target();
    if (element && !isDisabled(element)) element.focus();
    else if (framesLeft > 0) refocusIfLost(target, framesLeft - 1);
  });
}

function isDisabled(element: Element): boolean {
  return (element as { disabled?: unknown }).disabled === true;
}
