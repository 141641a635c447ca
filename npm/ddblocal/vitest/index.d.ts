declare module 'vitest' {
  export interface ProvidedContext {
    /** The endpoint of the server the ddblocal global setup started. */
    ddblocalEndpoint: string;
  }
}
/** Vitest globalSetup: starts ddblocal for the run; returns its teardown. */
export default function setup(project?: unknown): Promise<() => Promise<void>>;
