import {
  createAllowResponse,
  createDenyResponse,
  type CanUseToolRequest,
  type CliControlRequestMessage,
  type HostControlResponse,
  type RunMode,
} from '@catalyst/protocol';
import { decideControlRequest, type AskPerson } from './control-decision.ts';
import { RememberedPermissions, withRememberSuggestion } from './remembered-permissions.ts';
import { log, type RunCommand } from './run-commands.ts';
import { STOPPING_MESSAGE, type ControlAnswer } from './tool-policy.ts';

/**
 * The run lifecycle's prompts: `can_use_tool` requests that wait for a person (protocol §8.2, §8.3). Each one
 * pauses the inactivity timer through the lifecycle's hooks until it is answered, withdrawn, or settled by a stop.
 */

export interface PromptHooks {
  write: (line: object) => RunCommand;
  /** Marks `id` pending (the inactivity timer pauses); returns the commands that pause it. */
  hold: (id: string) => RunCommand[];
  /** Ends `id`'s wait; returns the commands that resume the timer once nothing is pending. */
  release: (id: string, now: number) => RunCommand[];
  /** Forgets `id` without resuming anything: the run is stopping. */
  drop: (id: string) => void;
}

export interface PromptRequestState {
  mode: RunMode;
  askPerson: AskPerson;
  isStopping: boolean;
  isInputEnded: boolean;
}

export class LifecyclePrompts {
  /** Pending prompts, with the permission request each one asks about (none for a question). */
  readonly #ids = new Map<string, CanUseToolRequest | undefined>();
  readonly #remembered = new RememberedPermissions();
  readonly #hooks: PromptHooks;

  constructor(hooks: PromptHooks) {
    this.#hooks = hooks;
  }

  onRequest(message: CliControlRequestMessage, state: PromptRequestState): RunCommand[] {
    const decision = decideControlRequest(message, state);
    if (decision.kind === 'reply') return this.reply(decision.answer);
    if (state.isInputEnded) return [log('info', 'a prompt arrived after the input closed; nobody is asked')];
    const { prompt, requestId } = decision;
    if (prompt === 'permission' && this.#remembered.covers(decision.request)) {
      const allow = createAllowResponse(requestId, decision.request.input);
      return [
        log('info', `${decision.request.tool_name} allowed: the person chose to remember it`),
        this.#hooks.write(allow),
      ];
    }
    const request = prompt === 'permission' ? withRememberSuggestion(decision.request) : decision.request;
    this.#ids.set(requestId, prompt === 'permission' ? request : undefined);
    return [...this.#hooks.hold(requestId), { type: 'ask', prompt, requestId, request }];
  }

  /** A control answer written at once (its note, when it has one, logged first). */
  reply(answer: ControlAnswer): RunCommand[] {
    const write = this.#hooks.write(answer.response);
    return answer.note === undefined ? [write] : [log('info', answer.note), write];
  }

  onAnswered(id: string, response: HostControlResponse, now: number): RunCommand[] {
    if (!this.#ids.has(id)) return [log('info', `a late answer to prompt ${id} was dropped`)];
    const permission = this.#ids.get(id);
    this.#ids.delete(id);
    if (permission !== undefined) this.#remembered.noteAnswer(permission, response);
    return [this.#hooks.write(response), ...this.#hooks.release(id, now)];
  }

  /** §8.4 [16c]: the CLI withdrew its own prompt (after an interrupt); an answer now would be ignored. */
  onWithdrawn(id: string, now: number): RunCommand[] {
    if (!this.#ids.delete(id)) return [];
    return [{ type: 'close_prompts', ids: [id], reason: 'withdrawn' }, ...this.#hooks.release(id, now)];
  }

  /**
   * A stop settles every prompt: while the CLI lives, each gets deny + interrupt (§8.2), which ends the turn.
   * Once the process is gone (`isAlive` false) there is nobody to write to; the prompts are only closed.
   */
  settle(reason: 'cancelled' | 'timed_out', isAlive: boolean): RunCommand[] {
    const ids = [...this.#ids.keys()];
    if (ids.length === 0) return [];
    this.#ids.clear();
    for (const id of ids) this.#hooks.drop(id);
    const denials = isAlive
      ? ids.map((id) => this.#hooks.write(createDenyResponse(id, STOPPING_MESSAGE, { interrupt: true })))
      : [];
    return [{ type: 'close_prompts', ids, reason }, ...denials];
  }
}
