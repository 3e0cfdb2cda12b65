import { readFile } from 'node:fs/promises';
import ssh2, {
  BaseAgent,
  type AnyAuthMethod,
  type AuthHandlerMiddleware,
  type IdentityCallback,
  type ParsedKey,
  type SignCallback,
  type SigningRequestOptions,
} from 'ssh2';
import { describeError } from './ssh-errors.ts';

// Node's ESM loader sees only some of ssh2's CommonJS exports by name (BaseAgent, Client): the rest through default.
const { OpenSSHAgent, utils } = ssh2;
type OpenSSHAgent = InstanceType<typeof OpenSSHAgent>;

/**
 * Public-key authentication as ssh orders it (sshconnect2.c `pubkey_prepare`): the agent's keys that match a
 * configured identity file first, then the agent's other keys (unless IdentitiesOnly), then the files the agent does
 * not hold, in config order. Each agent key is offered alone, so the order is ours and not the agent's. What could
 * not be used (an encrypted file with no agent holding it, an agent that does not answer) becomes a note for the
 * sentence if authentication fails; the method that worked is remembered for the host's check.
 */

export interface SshIdentities {
  /** IdentityFile paths, expanded, in config order. */
  readonly files: readonly string[];
  /** Whether the files are ssh's defaults (`~/.ssh/id_*`): a missing default is normal, a missing named one is not. */
  readonly areDefaultFiles: boolean;
  /** The agent's socket; undefined for none (IdentityAgent none, or no SSH_AUTH_SOCK). */
  readonly agentSocket?: string | undefined;
  readonly identitiesOnly: boolean;
}

export interface AuthPlan {
  readonly handler: AuthHandlerMiddleware;
  /** Why some identities were not offered, and what failed: for the sentence when every method was refused. */
  readonly notes: readonly string[];
  /** The method last offered: once the connection is ready, the one that worked. */
  lastOffered(): string | undefined;
  /** Whether anything at all could be offered. */
  readonly hasMethods: boolean;
}

interface Candidate {
  readonly describe: string;
  readonly method: (username: string) => AnyAuthMethod;
}

interface FileKey {
  readonly path: string;
  readonly key: ParsedKey;
}

export async function planAuth(user: string, identities: SshIdentities): Promise<AuthPlan> {
  const notes: string[] = [];
  const files = await readIdentityFiles(identities, notes);
  const agent = await readAgent(identities.agentSocket, notes);
  const isInAgent = (file: FileKey) => agent.keys.some((key) => samePublic(key, file.key));
  const matching = agent.keys.filter((key) => files.some((file) => samePublic(key, file.key)));
  const others = identities.identitiesOnly ? [] : agent.keys.filter((key) => !matching.includes(key));
  const candidates: Candidate[] = [
    ...[...matching, ...others].map((key) => agentCandidate(agent.socket, key)),
    ...files.filter((file) => !isInAgent(file)).map(fileCandidate),
  ];
  return createPlan(user, candidates, notes);
}

function createPlan(user: string, candidates: Candidate[], notes: string[]): AuthPlan {
  if (candidates.length === 0 && notes.length === 0)
    notes.push('Catalyst has no key to offer: no identity file and no ssh-agent');
  let next = 0;
  let offered: string | undefined;
  return {
    notes,
    hasMethods: candidates.length > 0,
    lastOffered: () => offered,
    handler: (_methodsLeft, _partialSuccess, callback) => {
      const candidate = candidates[next++];
      offered = candidate?.describe ?? offered;
      // ssh2 takes `false` for "nothing more to try"; its type declarations leave that out.
      const answer = callback as (method: AnyAuthMethod | false) => void;
      answer(candidate === undefined ? false : candidate.method(user));
    },
  };
}

async function readIdentityFiles(identities: SshIdentities, notes: string[]): Promise<FileKey[]> {
  const keys: FileKey[] = [];
  for (const path of identities.files) {
    let text: Buffer;
    try {
      text = await readFile(path);
    } catch (error) {
      if (!identities.areDefaultFiles)
        notes.push(`the key file ${path} cannot be read (${describeError(error)})`);
      continue;
    }
    const parsed = utils.parseKey(text);
    if (parsed instanceof Error) {
      notes.push(
        /encrypted/i.test(parsed.message)
          ? `the key ${path} is encrypted: add it to your ssh-agent (\`ssh-add ${path}\`), Catalyst asks for no passphrase`
          : `the key ${path} cannot be used (${parsed.message})`,
      );
      continue;
    }
    keys.push({ path, key: parsed });
  }
  return keys;
}

async function readAgent(
  socket: string | undefined,
  notes: string[],
): Promise<{ socket: string; keys: ParsedKey[] }> {
  if (socket === undefined) return { socket: '', keys: [] };
  const agent = new OpenSSHAgent(socket);
  return new Promise((resolve) => {
    agent.getIdentities((error, keys) => {
      if (error !== undefined && error !== null) {
        notes.push(`the ssh-agent at ${socket} did not answer (${error.message})`);
        resolve({ socket, keys: [] });
        return;
      }
      const parsed = (keys ?? []).filter(isParsedKey);
      if (parsed.length === 0) notes.push(`the ssh-agent at ${socket} holds no keys`);
      resolve({ socket, keys: parsed });
    });
  });
}

/** OpenSSHAgent answers with parsed keys; the declared type also allows entries it never gives. */
function isParsedKey(key: unknown): key is ParsedKey {
  return (
    typeof key === 'object' && key !== null && 'getPublicSSH' in key && typeof key.getPublicSSH === 'function'
  );
}

function samePublic(a: ParsedKey, b: ParsedKey): boolean {
  return a.getPublicSSH().equals(b.getPublicSSH());
}

function agentCandidate(socket: string, key: ParsedKey): Candidate {
  const agent = new OneKeyAgent(new OpenSSHAgent(socket), key);
  return {
    describe: `the ${key.type} key ${key.comment || ''} in the ssh-agent`.replace('  ', ' '),
    method: (username) => ({ type: 'agent', username, agent }),
  };
}

function fileCandidate(file: FileKey): Candidate {
  return {
    describe: `the key file ${file.path}`,
    method: (username) => ({ type: 'publickey', username, key: file.key }),
  };
}

/** One key of an agent, so that ssh2 offers it alone, in the order chosen here. */
class OneKeyAgent extends BaseAgent<ParsedKey> {
  readonly #agent: OpenSSHAgent;
  readonly #key: ParsedKey;

  constructor(agent: OpenSSHAgent, key: ParsedKey) {
    super();
    this.#agent = agent;
    this.#key = key;
  }

  getIdentities(callback: IdentityCallback<ParsedKey>): void {
    callback(undefined, [this.#key]);
  }

  sign(pubKey: ParsedKey, data: Buffer, options: SigningRequestOptions, callback?: SignCallback): void;
  sign(pubKey: ParsedKey, data: Buffer, callback: SignCallback): void;
  sign(
    pubKey: ParsedKey,
    data: Buffer,
    options: SigningRequestOptions | SignCallback,
    callback?: SignCallback,
  ): void {
    if (typeof options === 'function') this.#agent.sign(pubKey, data, options);
    else this.#agent.sign(pubKey, data, options, callback);
  }
}
