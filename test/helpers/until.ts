/**
 * Resolves once `check` holds, looking every 20 ms: for what another node, process or the database makes true.
 * No time limit of its own: the test's timeout stands (a sleep-and-assert would fail at random on a loaded machine).
 */
export async function until(check: () => Promise<boolean> | boolean): Promise<void> {
  while (!(await check())) await new Promise((resolve) => setTimeout(resolve, 20));
}
