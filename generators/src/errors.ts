/**
 * The one error the generator raises on purpose: bad input, or a refusal the user can fix. The CLI
 * prints its message (with file and entity) without a stack; any other error is a bug.
 * @module
 */
export class GeneratorError extends Error {
  constructor(
    message: string,
    readonly file?: string,
    readonly entity?: string,
  ) {
    super(message)
    this.name = 'GeneratorError'
  }
}
