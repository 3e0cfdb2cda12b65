import type { z } from 'zod';

/**
 * Parses what the server sent with protocol's schemas, but lets a newer server add fields (issue 39). Protocol's
 * schemas are strict (`z.strictObject`), right for what the server accepts, wrong for what an older page reads
 * from a newer server: a field it never heard of must not make the whole answer "not understood". Keys zod names
 * as unrecognized are dropped and the value parsed once more; every other mismatch still fails.
 */
/** A text as JSON; undefined when it is not JSON (which no JSON text parses to). */
export function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

export function parseServerData<T>(schema: z.ZodType<T>, value: unknown): z.ZodSafeParseResult<T> {
  const first = schema.safeParse(value);
  if (first.success) return first;
  const unknownKeys = first.error.issues.filter((issue) => issue.code === 'unrecognized_keys');
  if (unknownKeys.length === 0 || unknownKeys.length !== first.error.issues.length) return first;
  const copy: unknown = structuredClone(value);
  for (const issue of unknownKeys) dropKeys(copy, issue.path, issue.keys);
  return schema.safeParse(copy);
}

function dropKeys(root: unknown, path: readonly PropertyKey[], keys: readonly string[]): void {
  let target: unknown = root;
  for (const step of path) {
    if (typeof target !== 'object' || target === null) return;
    target = Reflect.get(target, step);
  }
  if (typeof target !== 'object' || target === null) return;
  for (const key of keys) Reflect.deleteProperty(target, key);
}
