import { isValidHostnameArg } from './ssh-command-line-names.ts';
import { loadSshConfigFiles, type LoadedConfigFile } from './ssh-config-load.ts';
import type { SshConfigSources } from './ssh-config-sources.ts';

/**
 * The aliases a person could pick from their ssh config: every `Host` word that names one host (no `*`, `?` or
 * `!`) and that ssh would take as a name to connect to, from the config and the files it includes, in file order,
 * each once.
 */
export async function listSshConfigAliases(
  sources: SshConfigSources,
  options: { readonly configFile?: string } = {},
): Promise<string[]> {
  const files = await loadSshConfigFiles(sources, options.configFile);
  const aliases = new Set<string>();
  for (const file of files) collectAliases(file, aliases);
  return [...aliases];
}

function collectAliases(file: LoadedConfigFile, aliases: Set<string>): void {
  for (const entry of file.entries) {
    if (entry.kind === 'include') {
      for (const included of entry.files) collectAliases(included, aliases);
    } else if (entry.line.keyword === 'host') {
      for (const word of entry.line.args) if (isConcreteAlias(word)) aliases.add(word);
    }
  }
}

/** A pattern matches many names; a word ssh would refuse on its command line (a space, a `;`) cannot be typed. */
function isConcreteAlias(word: string): boolean {
  return word !== '' && !/[*?!]/.test(word) && isValidHostnameArg(word);
}
