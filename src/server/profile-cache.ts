import type { DynamicProfile, Store } from '../core/index.js';

/**
 * The latest dynamic profiles, for the event stream's route documents (a pending skip names its next candidate):
 * events are built synchronously, in commit order, so they cannot wait for a read. Filled at start and on every
 * save through the API; a profile not yet seen is read in the background and shows from the next event on.
 */
export class ProfileCache {
  private readonly profiles = new Map<string, DynamicProfile | null>();

  constructor(private readonly store: () => Store | null) {}

  get(id: string): DynamicProfile | null {
    const store = this.store();
    if (!this.profiles.has(id) && store !== null) {
      this.profiles.set(id, null);
      store.readProfile(id).then(
        (p) => this.profiles.set(id, p),
        () => this.profiles.delete(id),
      );
    }
    return this.profiles.get(id) ?? null;
  }

  set(profile: DynamicProfile): void {
    this.profiles.set(profile.id, profile);
  }

  forget(id: string): void {
    this.profiles.delete(id);
  }
}
