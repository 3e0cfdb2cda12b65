import type { PreviewSuggestion } from '@catalyst/protocol';
import { suggestFromPackageJson, suggestFromPyproject } from './core/preview-suggestion.ts';
import type { HostRegistry } from '../hosts/host-registry.ts';

const SUGGESTION_FILE_BYTES = 256 * 1024;

/** A preview command and port to propose for an idea that has none, from its project's package.json or pyproject.toml. */
export async function suggestPreview(
  hosts: HostRegistry,
  id: string,
  hostName: string,
): Promise<PreviewSuggestion | undefined> {
  const host = hosts.get(hostName).host;
  const project = (await hosts.store(hostName)).paths(id).project;
  // A suggestion is a hint: a file that is missing, unreadable, or no regular file (a FIFO is never opened,
  // issue 25) proposes nothing, and neither does a host that does not answer in time.
  const read = async (name: string) => {
    const found = await host
      .readWithin({ root: project, path: name, maxBytes: SUGGESTION_FILE_BYTES })
      .catch(() => undefined);
    return found?.kind === 'file' ? found.data.toString('utf8') : undefined;
  };
  const packageJson = await read('package.json');
  const fromPackage = packageJson === undefined ? undefined : suggestFromPackageJson(packageJson);
  if (fromPackage !== undefined) return fromPackage;
  const pyproject = await read('pyproject.toml');
  return pyproject === undefined ? undefined : suggestFromPyproject(pyproject);
}
