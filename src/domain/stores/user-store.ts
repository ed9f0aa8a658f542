/** A person who signs in. */
export interface User {
  id: string;
  email: string;
  name: string | null;
  avatarUrl: string | null;
  createdAt: number;
}

export interface UserPatch {
  /** null clears the name; undefined leaves it. */
  name?: string | null;
  /** null removes the avatar. */
  avatarUrl?: null;
}

/** Users and their one-time signup survey (one atomic operation a method). */
export interface UserStore {
  find(id: string): Promise<User | undefined>;
  update(id: string, patch: UserPatch): Promise<void>;
  /** True until the user has answered the signup survey. */
  attributionPending(userId: string): Promise<boolean>;
  /** Saves the survey's answers (JSON text); false when the user had answered already. */
  saveAttribution(userId: string, answers: string, now: number): Promise<boolean>;
}
