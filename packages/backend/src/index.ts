export * from './core/catalyst-error.ts';
