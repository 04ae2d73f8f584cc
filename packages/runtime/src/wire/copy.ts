/**
 * Shallow copies that members are added to, without a hidden class per copy.
 * @module
 */

/**
 * `{ ...source, added }` where `added` is a member `source` lacks, built so that its copies share
 * one hidden class. On Node 20's V8 a spread followed by a new member (in the literal, or assigned
 * after) gives every copy a map and descriptor array of its own: some 300 bytes that live as long
 * as the copy, and a runtime call, about 30× the cost of this. Object.assign onto a fresh object
 * follows the shared transitions. Only for objects the runtime built or read through a shape (a
 * member named `__proto__` would be assigned, not copied); members that `source` holds already
 * are overwritten in place, as a spread does.
 */
export function extended<T extends object, U extends object>(source: T, added: U): Omit<T, keyof U> & U {
  return Object.assign(Object.assign({}, source), added)
}
