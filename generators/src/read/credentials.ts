/**
 * Columns named like credentials: hidden from agents unless a declaration lists them in `exposed`.
 * A name is read as words (`passwordHash`, `password_hash` → password, hash), and its last word
 * decides, so `passwordHash` and `apiKey` are credentials while `tokenCount` and
 * `passwordChangedAt` are not.
 * @module
 */
import { words } from '../names.js'

const SECRET_WORDS = new Set(['password', 'passwd', 'pwd', 'passphrase', 'hash', 'salt', 'secret', 'token', 'otp', 'totp', 'pin', 'credential', 'credentials', 'apikey', 'cookie'])
// A trailing `key` is a credential after these words: apiKey, private_key, signingKey.
const KEY_KINDS = new Set(['api', 'private', 'secret', 'signing', 'encryption', 'access', 'session', 'master'])

/** Whether a String or Bytes column's name reads as a secret. */
export function looksLikeCredential(name: string, type: string): boolean {
  if (type !== 'String' && type !== 'Bytes') return false
  const parts = words(name)
  const last = parts.at(-1)
  if (last === undefined) return false
  if (SECRET_WORDS.has(last)) return true
  return last === 'key' && parts.length > 1 && KEY_KINDS.has(parts.at(-2)!)
}
