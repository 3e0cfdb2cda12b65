export * from './error-codes.ts';
export * from './cli-output.ts';
export * from './cli-input.ts';
export * from './stream-events.ts';
export * from './command-result.ts';
