/**
 * The app's package name (the target folder's last segment) checked against npm's rules, with a
 * name that passes them to suggest; and commands quoted for a POSIX shell before they are printed.
 * @module
 */
import { quote } from 'shell-quote'
import validateName from 'validate-npm-package-name'

/** What npm says is wrong with `name` as a new package's name; empty when it is fine. */
export function packageNameProblems(name: string): string[] {
  const verdict = validateName(name)
  return verdict.validForNewPackages ? [] : [...(verdict.errors ?? []), ...(verdict.warnings ?? [])]
}

/** The closest name npm accepts: lowercase, runs of other characters as one `-`, no `-`/`.`/`_` at the ends. */
export function suggestPackageName(name: string): string {
  const base =
    name
      .toLowerCase()
      .replace(/[^a-z0-9._-]+/g, '-')
      .replace(/-{2,}/g, '-')
      .replace(/^[-._]+|[-._]+$/g, '')
      .slice(0, 214) || 'a2a-agent'
  // A core module's name (`http`) or a reserved one (`node_modules`) is refused as it is.
  return packageNameProblems(base).length === 0 ? base : `${base}-agent`
}

/** `words` as one command line for sh/bash/zsh: each quoted only when it needs to be. */
export function shellCommand(...words: string[]): string {
  return quote(words)
}
