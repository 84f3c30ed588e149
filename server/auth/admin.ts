import { randomBytes } from 'node:crypto';
import { AuthError } from './errors.js';
import { checkNewPassword, normalizeEmail, type NewEmailUser } from './email-users.js';

/** Fields of GoTrue's admin create that this server does not offer (phone sign-in, imported hashes, custom ids, roles, bans). */
const UNSUPPORTED_FIELDS = ['phone', 'phone_confirm', 'password_hash', 'id', 'role', 'aud', 'ban_duration'] as const;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

function badField(field: string, type: string): AuthError {
  return new AuthError(400, 'bad_json', `Could not parse request body as JSON: ${field} must be ${type}`);
}

function optionalObject(body: Record<string, unknown>, field: string): Record<string, unknown> {
  const value = body[field];
  if (value === undefined || value === null) return {};
  if (typeof value !== 'object' || Array.isArray(value)) throw badField(field, 'an object');
  return value as Record<string, unknown>;
}

/**
 * Reads the body of `POST /admin/users` as GoTrue does for an email user: `email` (required
 * here, checked and lower-cased), `password` (checked for length; a random one when absent, so
 * the user cannot sign in until one is set), `email_confirm`, `user_metadata`, `app_metadata`.
 * Phone users, password hashes, custom ids, roles and bans are refused with a clear 400.
 */
export function readNewUser(body: Record<string, unknown>): NewEmailUser {
  for (const field of UNSUPPORTED_FIELDS) {
    if (body[field] !== undefined && body[field] !== null && body[field] !== '' && body[field] !== false) {
      throw new AuthError(400, 'validation_failed', `${field} is not supported by this server`);
    }
  }
  const { email, password, email_confirm: emailConfirm } = body;
  if (email !== undefined && typeof email !== 'string') throw badField('email', 'a string');
  if (password !== undefined && password !== null && typeof password !== 'string') throw badField('password', 'a string');
  if (emailConfirm !== undefined && typeof emailConfirm !== 'boolean') throw badField('email_confirm', 'a boolean');
  if (!email) throw new AuthError(400, 'validation_failed', 'Cannot create a user without either an email or phone');
  const normalized = normalizeEmail(email);
  if (typeof password === 'string' && password !== '') checkNewPassword(password);
  return {
    email: normalized,
    password: typeof password === 'string' && password !== '' ? password : randomBytes(32).toString('base64url'),
    confirmed: emailConfirm === true,
    userMetadata: optionalObject(body, 'user_metadata'),
    appMetadata: optionalObject(body, 'app_metadata'),
  };
}

/** The user id of `/admin/users/<id>`, checked as GoTrue does (404 `validation_failed`). */
export function readUserId(segment: string): string {
  if (!UUID.test(segment)) throw new AuthError(404, 'validation_failed', 'user_id must be an UUID');
  return segment.toLowerCase();
}

/** Refuses `should_soft_delete: true`: this server deletes users, it does not hide them. */
export function checkHardDelete(body: Record<string, unknown>): void {
  if (body.should_soft_delete === true) throw new AuthError(400, 'validation_failed', 'should_soft_delete is not supported by this server');
}
