import type {
  AddHostBody,
  AskAsideBody,
  AsideView,
  HostDetailResponse,
  HostCheckView,
  HostEntryView,
  SshAliasesResponse,
  AutopilotView,
  CheckpointDiffResponse,
  CheckpointView,
  FileContentResponse,
  FileListResponse,
  ListeningPort,
  PreviewLinkResponse,
  PreviewLogResponse,
  PreviewView,
} from '@catalyst/protocol';
import { CatalystError } from '../src/core/catalyst-error.ts';
import type {
  AsidesPort,
  AutopilotsPort,
  FilesPort,
  HostHealth,
  HostsPort,
  PreviewsPort,
  Services,
} from '../src/service/ports.ts';
import { IdeasDouble, settle } from './server-idea-double.ts';
import { ReviewsDouble } from './server-review-double.ts';

/**
 * The capabilities besides ideas and runs, in memory for the edge tests: each as small as its port, each checking
 * the idea in the ideas double first and recording its calls in the same list, in order.
 */

export interface ServiceDoubles extends Services {
  ideas: IdeasDouble;
  runs: IdeasDouble;
  hosts: HostsDouble;
}

export function createServiceDoubles(): ServiceDoubles {
  const ideas = new IdeasDouble();
  return {
    ideas,
    runs: ideas,
    autopilots: new AutopilotsDouble(ideas),
    files: new FilesDouble(ideas),
    reviews: new ReviewsDouble(ideas),
    previews: new PreviewsDouble(ideas),
    hosts: new HostsDouble(ideas),
    asides: new AsidesDouble(ideas),
    terminals: {
      openCount: (id) =>
        settle(() => {
          ideas.calls.push(`openTerminals ${id}`);
          ideas.find(id);
          return { open: 0 };
        }),
    },
  };
}

class AsidesDouble implements AsidesPort {
  readonly #ideas: IdeasDouble;

  constructor(ideas: IdeasDouble) {
    this.#ideas = ideas;
  }

  askAside(id: string, body: AskAsideBody): Promise<AsideView> {
    return settle(() => {
      this.#ideas.calls.push(`askAside ${id} ${body.question}`);
      this.#ideas.find(id);
      throw new CatalystError('NO_SESSION', 'no session');
    });
  }

  listAsides(id: string): Promise<AsideView[]> {
    return settle(() => {
      this.#ideas.calls.push(`listAsides ${id}`);
      this.#ideas.find(id);
      return [];
    });
  }
}

class AutopilotsDouble implements AutopilotsPort {
  readonly #ideas: IdeasDouble;

  constructor(ideas: IdeasDouble) {
    this.#ideas = ideas;
  }

  startAutopilot(id: string): Promise<AutopilotView> {
    return settle(() => {
      this.#ideas.calls.push(`startAutopilot ${id}`);
      this.#ideas.find(id);
      throw new CatalystError('RUN_IN_PROGRESS', 'The double runs no autopilots.');
    });
  }

  latestAutopilot(id: string): Promise<AutopilotView | null> {
    return settle(() => {
      this.#ideas.calls.push(`latestAutopilot ${id}`);
      this.#ideas.find(id);
      return null;
    });
  }

  getAutopilot(autopilotId: string): Promise<AutopilotView> {
    return settle(() => {
      this.#ideas.calls.push(`getAutopilot ${autopilotId}`);
      throw new CatalystError('AUTOPILOT_NOT_FOUND', `There is no autopilot ${autopilotId}.`);
    });
  }

  cancelAutopilot(autopilotId: string): Promise<AutopilotView> {
    return settle(() => {
      this.#ideas.calls.push(`cancelAutopilot ${autopilotId}`);
      throw new CatalystError('AUTOPILOT_NOT_FOUND', `There is no autopilot ${autopilotId}.`);
    });
  }

  queue(id: string): Promise<AutopilotView | null> {
    return settle(() => {
      this.#ideas.calls.push(`queue ${id}`);
      this.#ideas.find(id);
      return null;
    });
  }

  addToQueue(id: string): Promise<AutopilotView> {
    return this.#noQueue('addToQueue', id);
  }

  updateQueuedStep(id: string): Promise<AutopilotView> {
    return this.#noQueue('updateQueuedStep', id);
  }

  removeQueuedStep(id: string): Promise<AutopilotView> {
    return this.#noQueue('removeQueuedStep', id);
  }

  sendQueuedStepNow(id: string): Promise<AutopilotView> {
    return this.#noQueue('sendQueuedStepNow', id);
  }

  setQueueBudget(id: string): Promise<AutopilotView> {
    return this.#noQueue('setQueueBudget', id);
  }

  resumeQueue(id: string): Promise<AutopilotView> {
    return this.#noQueue('resumeQueue', id);
  }

  clearQueue(id: string): Promise<AutopilotView | null> {
    return this.queue(id);
  }

  #noQueue(call: string, id: string): Promise<AutopilotView> {
    return settle(() => {
      this.#ideas.calls.push(`${call} ${id}`);
      this.#ideas.find(id);
      throw new CatalystError('NO_QUEUE', 'The double queues nothing.');
    });
  }
}

class FilesDouble implements FilesPort {
  readonly #ideas: IdeasDouble;

  constructor(ideas: IdeasDouble) {
    this.#ideas = ideas;
  }

  listCheckpoints(id: string): Promise<CheckpointView[]> {
    return settle(() => {
      this.#ideas.calls.push(`listCheckpoints ${id}`);
      this.#ideas.find(id);
      return [];
    });
  }

  checkpointDiff(id: string, commit: string): Promise<CheckpointDiffResponse> {
    return this.#noCheckpoint(`checkpointDiff ${id} ${commit}`, id, commit);
  }

  restoreCheckpoint(id: string, commit: string): Promise<CheckpointView> {
    return this.#noCheckpoint(`restoreCheckpoint ${id} ${commit}`, id, commit);
  }

  #noCheckpoint(call: string, id: string, commit: string): Promise<never> {
    return settle(() => {
      this.#ideas.calls.push(call);
      this.#ideas.find(id);
      throw new CatalystError('CHECKPOINT_NOT_FOUND', `${commit} is not one of this idea's checkpoints.`);
    });
  }

  listFiles(id: string, path: string): Promise<FileListResponse> {
    return settle(() => {
      this.#ideas.calls.push(`listFiles ${id} ${path}`);
      this.#ideas.find(id);
      return { path, entries: [] };
    });
  }

  fileContent(id: string, path: string, at?: string): Promise<FileContentResponse> {
    return settle(() => {
      this.#ideas.calls.push(`fileContent ${id} ${path} ${at ?? ''}`);
      this.#ideas.find(id);
      return { path, size: 0, text: '' };
    });
  }

  fileHistory(id: string, path: string): Promise<CheckpointView[]> {
    return settle(() => {
      this.#ideas.calls.push(`fileHistory ${id} ${path}`);
      this.#ideas.find(id);
      return [];
    });
  }
}

class PreviewsDouble implements PreviewsPort {
  readonly #ideas: IdeasDouble;

  constructor(ideas: IdeasDouble) {
    this.#ideas = ideas;
  }

  preview(id: string, requestHost?: string): Promise<PreviewView> {
    return settle(() => {
      this.#ideas.calls.push(`preview ${id} ${String(requestHost)}`);
      this.#ideas.find(id);
      return { state: 'stopped' as const, command: null, port: null };
    });
  }

  startPreview(id: string): Promise<PreviewView> {
    return settle(() => {
      this.#ideas.calls.push(`startPreview ${id}`);
      this.#ideas.find(id);
      throw new CatalystError('PREVIEW_NOT_CONFIGURED', 'no preview command');
    });
  }

  stopPreview(id: string): Promise<PreviewView> {
    return settle(() => {
      this.#ideas.calls.push(`stopPreview ${id}`);
      this.#ideas.find(id);
      return { state: 'stopped' as const, command: null, port: null };
    });
  }

  previewLog(id: string): Promise<PreviewLogResponse> {
    return settle(() => {
      this.#ideas.calls.push(`previewLog ${id}`);
      this.#ideas.find(id);
      return { text: '', isCut: false };
    });
  }

  listeningPorts(id: string): Promise<ListeningPort[]> {
    return settle(() => {
      this.#ideas.calls.push(`listeningPorts ${id}`);
      this.#ideas.find(id);
      return [];
    });
  }

  previewPortLink(id: string, port: number): Promise<PreviewLinkResponse> {
    return settle(() => {
      this.#ideas.calls.push(`previewPortLink ${id} ${port}`);
      this.#ideas.find(id);
      throw new CatalystError('PREVIEW_PORT_NOT_LISTENING', `nothing on ${port}`);
    });
  }
}

/** A test may replace `hosts` on the instance to make it fail. */
export class HostsDouble implements HostsPort {
  readonly #ideas: IdeasDouble;

  constructor(ideas: IdeasDouble) {
    this.#ideas = ideas;
  }

  hosts(): Promise<HostHealth[]> {
    return settle(() => {
      this.#ideas.calls.push('hosts');
      return [{ name: 'local', label: 'this machine', isDefault: true, reachable: true }];
    });
  }

  getHost(name: string): Promise<HostDetailResponse> {
    return settle(() => {
      this.#ideas.calls.push(`getHost ${name}`);
      if (name !== 'local') throw new CatalystError('HOST_NOT_FOUND', `There is no host named ${name}.`);
      return {
        host: {
          name,
          kind: 'local' as const,
          source: 'file' as const,
          isDefault: true,
          ideasRoot: '~/catalyst/ideas',
        },
        lastCheck: null,
      };
    });
  }

  /** The double's one host comes from the config file: nothing about it may change. */
  addHost(body: AddHostBody): Promise<HostEntryView> {
    return this.#readOnly(`addHost ${body.name}`, body.name === 'local' ? 'HOST_EXISTS' : 'INVALID_ARGUMENT');
  }

  updateHost(name: string): Promise<HostEntryView> {
    return this.#readOnly(`updateHost ${name}`);
  }

  deleteHost(name: string): Promise<void> {
    return this.#readOnly(`deleteHost ${name}`);
  }

  checkHost(name: string): Promise<HostCheckView> {
    return this.#readOnly(`checkHost ${name}`);
  }

  trustHostKey(name: string): Promise<HostCheckView> {
    return this.#readOnly(`trustHostKey ${name}`);
  }

  sshAliases(): Promise<SshAliasesResponse> {
    return settle(() => {
      this.#ideas.calls.push('sshAliases');
      return { aliases: [] };
    });
  }

  #readOnly(
    call: string,
    code: 'HOST_READ_ONLY' | 'HOST_EXISTS' | 'INVALID_ARGUMENT' = 'HOST_READ_ONLY',
  ): Promise<never> {
    return settle(() => {
      this.#ideas.calls.push(call);
      throw new CatalystError(code, 'The double’s hosts cannot change.');
    });
  }
}
