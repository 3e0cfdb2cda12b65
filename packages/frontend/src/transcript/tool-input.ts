import { IDEA_ID_SOURCE } from '@catalyst/protocol';
import { z } from 'zod';

/**
 * Reading a tool call's input, which the model wrote: parsed leniently, and a shape we do not expect is shown as
 * plain JSON rather than trusted.
 */

const KEY_FIELDS = ['file_path', 'command', 'pattern', 'url', 'notebook_path', 'path', 'query'] as const;

/** The one value that says what the call does, for a tool card's first line. */
export function readKeyInput(input: Record<string, unknown>): { field: string; value: string } | undefined {
  for (const field of KEY_FIELDS) {
    const value = input[field];
    if (typeof value === 'string' && value !== '') return { field, value };
  }
  return undefined;
}

const PATH_FIELDS = new Set(['file_path', 'notebook_path', 'path']);
/** Where every idea's project lives on its host (docs/operations.md §6): `…/<idea id>/project/`. */
const PROJECT_PREFIX = new RegExp(`^.*/${IDEA_ID_SOURCE}/project/`);

/** A key input as a person reads it: a path inside the idea's project relative to it (the rest as it is). */
export function displayKeyInput(key: { field: string; value: string }): string {
  return PATH_FIELDS.has(key.field) ? key.value.replace(PROJECT_PREFIX, '') || key.value : key.value;
}

/** One replacement in a file: the text before and after. A Write has no "before" we know of. */
export interface FileEdit {
  readonly oldText: string;
  readonly newText: string;
}

export interface FileChange {
  readonly filePath: string;
  readonly edits: readonly FileEdit[];
}

const WriteInputSchema = z.looseObject({ file_path: z.string(), content: z.string() });
const EditSchema = z.looseObject({ old_string: z.string(), new_string: z.string() });
const EditInputSchema = EditSchema.extend({ file_path: z.string() });
const MultiEditInputSchema = z.looseObject({ file_path: z.string(), edits: z.array(EditSchema) });

const toEdit = (edit: z.infer<typeof EditSchema>): FileEdit => ({
  oldText: edit.old_string,
  newText: edit.new_string,
});

/** The change a Write, Edit or MultiEdit call makes; undefined for other tools or an input of another shape. */
export function readFileChange(toolName: string, input: Record<string, unknown>): FileChange | undefined {
  switch (toolName) {
    case 'Write': {
      const parsed = WriteInputSchema.safeParse(input);
      return parsed.success
        ? { filePath: parsed.data.file_path, edits: [{ oldText: '', newText: parsed.data.content }] }
        : undefined;
    }
    case 'Edit': {
      const parsed = EditInputSchema.safeParse(input);
      return parsed.success ? { filePath: parsed.data.file_path, edits: [toEdit(parsed.data)] } : undefined;
    }
    case 'MultiEdit': {
      const parsed = MultiEditInputSchema.safeParse(input);
      return parsed.success
        ? { filePath: parsed.data.file_path, edits: parsed.data.edits.map(toEdit) }
        : undefined;
    }
    default:
      return undefined;
  }
}

const EDITED_PATH_FIELDS: Readonly<Record<string, string>> = {
  Write: 'file_path',
  Edit: 'file_path',
  MultiEdit: 'file_path',
  NotebookEdit: 'notebook_path',
};

/** The file a Write, Edit, MultiEdit or NotebookEdit call changes, as the model gave it (absolute on the host). */
export function readEditedPath(toolName: string, input: Record<string, unknown>): string | undefined {
  const field = EDITED_PATH_FIELDS[toolName];
  const value = field === undefined ? undefined : input[field];
  return typeof value === 'string' && value !== '' ? value : undefined;
}

/**
 * `filePath` relative to the project folder `root` (both absolute on the host), or undefined when it is not inside
 * it: another folder, the folder itself, or a path that climbs out of it with `..`.
 */
export function projectRelativePath(filePath: string, root: string): string | undefined {
  const prefix = root.endsWith('/') ? root : `${root}/`;
  if (!root.startsWith('/') || !filePath.startsWith(prefix)) return undefined;
  const segments = filePath
    .slice(prefix.length)
    .split('/')
    .filter((segment) => segment !== '' && segment !== '.');
  if (segments.length === 0 || segments.includes('..')) return undefined;
  return segments.join('/');
}
