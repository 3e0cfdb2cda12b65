import { pino, type Logger } from 'pino';
import { z } from 'zod';
import { IdeaIdSchema } from '@catalyst/protocol';
import { writeFileAtomically } from '../service/atomic-file.ts';
import { parseOwnJsonFile, readOwnFile } from '../service/own-json-file.ts';

/**
 * Which host each idea lives on, kept beside the config on the machine that runs Catalyst. The hosts stay the
 * source of truth (their folders are listed on every listing); this only lets an idea on a host that is down be
 * listed as unavailable, and routes an id to its host without asking every host.
 */
const IndexFileSchema = z.strictObject({ version: z.literal(1), ideas: z.record(IdeaIdSchema, z.string()) });

export class IdeaIndex {
  readonly #path: string;
  readonly #ideas = new Map<string, string>();
  #saving: Promise<void> = Promise.resolve();

  private constructor(path: string, ideas: Record<string, string>) {
    this.#path = path;
    for (const [id, host] of Object.entries(ideas)) this.#ideas.set(id, host);
  }

  /**
   * A damaged index is set aside with a warning (own-json-file.ts) and rebuilt from the hosts' listings: it holds
   * nothing that is not on a host.
   */
  static async open(path: string, logger: Logger = pino({ level: 'silent' })): Promise<IdeaIndex> {
    const file = await parseOwnJsonFile({
      path,
      text: await readOwnFile(path),
      schema: IndexFileSchema,
      what: 'the idea index',
      logger,
    });
    return new IdeaIndex(path, file?.ideas ?? {});
  }

  hostOf(id: string): string | undefined {
    return this.#ideas.get(id);
  }

  idsOn(host: string): string[] {
    return [...this.#ideas].filter(([, name]) => name === host).map(([id]) => id);
  }

  /** Records what a host holds now: its ideas are exactly `ids`. */
  setHostIdeas(host: string, ids: readonly string[]): Promise<void> {
    for (const id of this.idsOn(host)) this.#ideas.delete(id);
    for (const id of ids) this.#ideas.set(id, host);
    return this.#save();
  }

  set(id: string, host: string): Promise<void> {
    this.#ideas.set(id, host);
    return this.#save();
  }

  delete(id: string): Promise<void> {
    this.#ideas.delete(id);
    return this.#save();
  }

  #save(): Promise<void> {
    const body = `${JSON.stringify({ version: 1, ideas: Object.fromEntries(this.#ideas) }, null, 2)}\n`;
    // A failed save must not poison the chain: the next save tries again with the whole index.
    this.#saving = this.#saving.catch(() => undefined).then(() => writeFileAtomically(this.#path, body));
    return this.#saving;
  }
}
