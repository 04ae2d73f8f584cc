/**
 * Unified diffs in git's shape (`a/` and `b/` prefixes, `/dev/null` for created and deleted files)
 * so `--diff` output reads like `git diff` and `git apply` accepts it.
 * @module
 */
import { FILE_HEADERS_ONLY, createTwoFilesPatch } from 'diff'

/** `before`/`after` undefined mean "no file" (a creation or a deletion). */
export function unifiedDiff(path: string, before: string | undefined, after: string | undefined): string {
  return createTwoFilesPatch(before === undefined ? '/dev/null' : `a/${path}`, after === undefined ? '/dev/null' : `b/${path}`, before ?? '', after ?? '', undefined, undefined, {
    headerOptions: FILE_HEADERS_ONLY,
  })
}
