import { randomUUID } from 'node:crypto';
import type { Database } from '../db/index.js';
import { AuthError, WeakPasswordError } from './errors.js';
import { hashPassword, verifyPassword } from './passwords.js';
import { recordRevoked } from './revocations.js';
import { loadUser, newSession, type AuthUser, type SessionGrant } from './users.js';

/**
 * Email-and-password users, as GoTrue keeps them: made by the operator through the admin API
 * (public sign-up is disabled: a player's identity is a wallet), signed in with the password
 * grant. They have an `email` identity and no wallet, so the game's policies treat them as
 * signed-in non-players.
 */

/** GoTrue's default shortest password. */
export const MIN_PASSWORD_LENGTH = 6;
/** GoTrue's longest password (bcrypt's limit there, kept here so both servers take the same ones). */
export const MAX_PASSWORD_LENGTH = 72;
/** GoTrue's longest email address. */
const MAX_EMAIL_LENGTH = 255;
/** The shape GoTrue's address check accepts: something, one @, a host with a dot, no spaces. */
const EMAIL_FORMAT = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

/** What the admin API's create call may set. */
export interface NewEmailUser {
  email: string;
  password: string;
  /** Confirmed now (`email_confirm`); an unconfirmed user cannot sign in. */
  confirmed: boolean;
  userMetadata: Record<string, unknown>;
  appMetadata: Record<string, unknown>;
}

const EMAIL_EXISTS = () => new AuthError(422, 'email_exists', 'A user with this email address has already been registered');
const INVALID_CREDENTIALS = () => new AuthError(400, 'invalid_credentials', 'Invalid login credentials');

/** Checks an address as GoTrue does and returns it lower-cased. Throws {@link AuthError}. */
export function normalizeEmail(email: string): string {
  if (email === '') throw new AuthError(400, 'validation_failed', 'An email address is required');
  if (email.length > MAX_EMAIL_LENGTH) throw new AuthError(400, 'validation_failed', 'An email address is too long');
  if (!EMAIL_FORMAT.test(email)) throw new AuthError(400, 'validation_failed', 'Unable to validate email address: invalid format');
  return email.toLowerCase();
}

/**
 * Checks a new password as GoTrue checks one a user sets: at most 72 characters (400) and at
 * least 6 (422 `weak_password`, reason `length`). Throws {@link AuthError}.
 */
export function checkNewPassword(password: string): void {
  if (password.length > MAX_PASSWORD_LENGTH) {
    throw new AuthError(400, 'validation_failed', `Password cannot be longer than ${MAX_PASSWORD_LENGTH} characters`);
  }
  if (password.length < MIN_PASSWORD_LENGTH) {
    throw new WeakPasswordError(`Password should be at least ${MIN_PASSWORD_LENGTH} characters.`, ['length']);
  }
}

function isUniqueViolation(error: unknown): boolean {
  return (error as { code?: string } | null)?.code === '23505';
}

/**
 * Creates an email user with its `email` identity, as GoTrue's admin create does: app_metadata
 * `{provider: 'email', providers: ['email']}` over the given app metadata, and
 * `email_verified` in user_metadata and identity data. Throws 422 `email_exists` for a taken address.
 */
export async function createEmailUser(db: Database, user: NewEmailUser): Promise<AuthUser> {
  const hash = await hashPassword(user.password);
  const userId = randomUUID();
  const appMetadata = { ...user.appMetadata, provider: 'email', providers: ['email'] };
  const userMetadata = { ...user.userMetadata, ...(user.confirmed ? { email_verified: true } : {}) };
  const identityData = { sub: userId, email: user.email, email_verified: user.confirmed, phone_verified: false };
  try {
    return await db.transaction(async (tx) => {
      const taken = await tx.query('select 1 from auth.users where email = $1', [user.email]);
      if (taken.rows.length > 0) throw EMAIL_EXISTS();
      await tx.query(
        `insert into auth.users (id, email, encrypted_password, email_confirmed_at, raw_app_meta_data, raw_user_meta_data)
         values ($1, $2, $3, case when $4 then now() end, $5, $6)`,
        [userId, user.email, hash, user.confirmed, JSON.stringify(appMetadata), JSON.stringify(userMetadata)],
      );
      await tx.query(
        `insert into auth.identities (provider_id, user_id, identity_data, provider) values ($1, $2, $3, 'email')`,
        [userId, userId, JSON.stringify(identityData)],
      );
      return (await loadUser(tx, userId))!;
    });
  } catch (error) {
    // Two creates of one address racing: the unique index refuses the second.
    if (isUniqueViolation(error)) throw EMAIL_EXISTS();
    throw error;
  }
}

/**
 * Deletes a user (email or wallet) with its identities and sessions, recording the sessions as
 * ended in the same transaction. Returns their ids, or null when there is no such user.
 */
export function deleteUser(db: Database, userId: string): Promise<string[] | null> {
  return db.transaction(async (tx) => {
    const sessions = await tx.query<{ id: string }>('select id from auth.sessions where user_id = $1', [userId]);
    const deleted = await tx.query('delete from auth.users where id = $1 returning id', [userId]);
    if (deleted.rows.length === 0) return null;
    const ids = sessions.rows.map((row) => row.id);
    await recordRevoked(tx, ids);
    return ids;
  });
}

/**
 * The password grant: finds the user by address (lower-cased), checks the password in constant
 * time (a dummy hash when there is no such user, so timing does not tell), refuses an unconfirmed
 * address, records the sign-in and opens a session. Every mismatch is GoTrue's one
 * `invalid_credentials` answer.
 */
export async function signInPassword(db: Database, email: string, password: string): Promise<SessionGrant> {
  const { rows } = await db.query<{ id: string; encrypted_password: string | null; confirmed: boolean }>(
    `select id, encrypted_password, email_confirmed_at is not null as confirmed from auth.users where email = $1`,
    [email.toLowerCase()],
  );
  const found = rows[0];
  const matches = await verifyPassword(password, found?.encrypted_password ?? null);
  if (!found || !matches) throw INVALID_CREDENTIALS();
  if (!found.confirmed) throw new AuthError(400, 'email_not_confirmed', 'Email not confirmed');
  return db.transaction(async (tx) => {
    await tx.query('update auth.users set last_sign_in_at = now(), updated_at = now() where id = $1', [found.id]);
    await tx.query(`update auth.identities set last_sign_in_at = now(), updated_at = now() where user_id = $1 and provider = 'email'`, [found.id]);
    const session = await newSession(tx, found.id);
    const user = await loadUser(tx, found.id);
    if (!user) throw INVALID_CREDENTIALS();
    return { user, ...session };
  });
}
