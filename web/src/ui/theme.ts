/** Light, dark, or the system's choice; kept in localStorage and applied as `data-theme` on <html>. */
export type ThemeChoice = 'system' | 'light' | 'dark';

const key = 'recourse.theme';

export function storedTheme(): ThemeChoice {
  try {
    const value = window.localStorage.getItem(key);
    return value === 'light' || value === 'dark' ? value : 'system';
  } catch {
    return 'system';
  }
}

export function applyTheme(choice: ThemeChoice): void {
  const dark =
    choice === 'dark' || (choice === 'system' && window.matchMedia('(prefers-color-scheme: dark)').matches);
  document.documentElement.dataset.theme = dark ? 'dark' : 'light';
  try {
    if (choice === 'system') window.localStorage.removeItem(key);
    else window.localStorage.setItem(key, choice);
  } catch {
    // A browser that refuses storage still gets the theme for this page.
  }
}
