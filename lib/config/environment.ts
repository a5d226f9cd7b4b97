/**
 * A process's environment as reprise reads it: variable names to their text, any of them unset.
 * `process.env` is one; a test, the CLI's `.env` file or the local runtime's options give others.
 */
export type Env = Readonly<Record<string, string | undefined>>;
