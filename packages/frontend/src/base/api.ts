import {
  SESSION_KEY_HEADER,
  type Api,
  type ApiRequest,
  type ApiResponse,
  type ApiRouteName,
  type AddHostBody,
  type AskAsideBody,
  type AsideView,
  type AutopilotView,
  type BrowserSessionView,
  type CheckpointDiffResponse,
  type CheckpointView,
  type CreateIdeaBody,
  type ErrorCode,
  type FileContentResponse,
  type FileListResponse,
  type HostHealthView,
  type IdeaView,
  type HostCheckView,
  type HostEntryView,
  type ListeningPort,
  type PairingLinkResponse,
  type PreviewLinkResponse,
  type PreviewLogResponse,
  type PreviewView,
  type PushSubscriptionBody,
  type PushSubscriptionView,
  type AddReviewCommentBody,
  type ReviewCommentView,
  type SendReviewResponse,
  type SshAliasesResponse,
  type StartAutopilotBody,
  type AddToQueueBody,
  type UpdateQueuedStepBody,
  type UpdateHostBody,
  type UpdateIdeaBody,
} from '@catalyst/protocol';
import { createContractCaller, type CallFailure } from '@catalyst/client/contract-caller';
import { clearSessionKey, readSessionKey, storeSessionKey } from './session-key.ts';
import { BUILD_HEADER, noteServerBuild } from './build-check.ts';

/**
 * The REST API, same origin, authenticated by both halves of the login: the HttpOnly cookie `POST /login` (or
 * `POST /pair`) set
 * and the key the page keeps (session-key.ts), sent in a header on every call. Every answer is parsed with the
 * protocol's schemas; a failure becomes an `ApiError` with a sentence for a person (never a stack trace).
 */
export class ApiError extends Error {
  readonly code: ErrorCode | 'NETWORK' | 'BAD_RESPONSE';
  readonly status: number;

  constructor(code: ApiError['code'], message: string, status: number) {
    super(message);
    this.name = 'ApiError';
    this.code = code;
    this.status = status;
  }

  get isUnauthorized(): boolean {
    return this.status === 401;
  }
}

/** Fired on any 401: the login lapsed (a new token, a cleared cookie); the app shows its login screen. */
export const UNAUTHORIZED_EVENT = 'catalyst:unauthorized';

const caller = createContractCaller({
  url: '',
  init: { credentials: 'same-origin' },
  headers: () => {
    const key = readSessionKey();
    return key === undefined ? {} : { [SESSION_KEY_HEADER]: key };
  },
  onResponse: (response) => {
    noteServerBuild(response.headers.get(BUILD_HEADER));
    if (response.status === 401) dispatchEvent(new Event(UNAUTHORIZED_EVENT));
  },
  toError: errorOf,
});

function errorOf(failure: CallFailure): ApiError {
  switch (failure.kind) {
    case 'unreachable':
      return new ApiError('NETWORK', 'Catalyst cannot be reached. Is it still running?', 0);
    case 'broken':
      return new ApiError('NETWORK', 'The connection to Catalyst broke off during its answer. Try again.', 0);
    case 'refused':
      // A code a newer server added: its sentence is still what a person needs.
      return new ApiError(failure.code ?? 'BAD_RESPONSE', failure.message, failure.status);
    case 'unexpected':
      return new ApiError(
        'BAD_RESPONSE',
        failure.status >= 400
          ? `Catalyst answered ${failure.status}.`
          : `Catalyst sent an answer this page does not understand (${failure.path}).`,
        failure.status >= 400 ? failure.status : 0,
      );
  }
}

/**
 * One route of the contract (protocol api-contract.ts): its path built from the request's values, its body sent as
 * JSON, its answer parsed with its schema.
 */
function call<N extends ApiRouteName>(
  name: N,
  ...args: OptionalIfEmpty<ApiRequest<Api[N]>>
): Promise<ApiResponse<Api[N]>> {
  return caller.call(name, inputOf(args) as ApiRequest<Api[N]>);
}

/** The request's parts, read through `unknown`: its type across every route is too large a union for TypeScript. */
function inputOf(args: readonly unknown[]): { params?: object; query?: object; body?: unknown } {
  const [first] = args;
  return typeof first === 'object' && first !== null ? first : {};
}

/** A route with nothing to send is called with no request. */
type OptionalIfEmpty<T> = object extends T ? [request?: T] : [request: T];

export const api = {
  async listIdeas(): Promise<IdeaView[]> {
    return (await call('listIdeas')).ideas;
  },
  async getIdea(id: string): Promise<IdeaView> {
    return (await call('getIdea', { params: { id } })).idea;
  },
  async createIdea(body: CreateIdeaBody): Promise<IdeaView> {
    return (await call('createIdea', { body })).idea;
  },
  async updateIdea(id: string, body: UpdateIdeaBody): Promise<IdeaView> {
    return (await call('updateIdea', { params: { id }, body })).idea;
  },
  async deleteIdea(id: string): Promise<void> {
    await call('deleteIdea', { params: { id } });
  },
  /** The idea's current or last autopilot; null when it never had one. */
  async latestAutopilot(ideaId: string): Promise<AutopilotView | null> {
    return (await call('latestAutopilot', { params: { id: ideaId } })).autopilot;
  },
  async startAutopilot(ideaId: string, body: StartAutopilotBody): Promise<AutopilotView> {
    return (await call('startAutopilot', { params: { id: ideaId }, body })).autopilot;
  },
  async cancelAutopilot(autopilotId: string): Promise<AutopilotView> {
    return (await call('cancelAutopilot', { params: { autopilotId } })).autopilot;
  },
  /** The queue of next messages (issue 30): a message queued (sent at once when nothing runs or waits). */
  async addToQueue(ideaId: string, body: AddToQueueBody): Promise<AutopilotView> {
    return (await call('addToQueue', { params: { id: ideaId }, body })).queue;
  },
  async updateQueuedStep(ideaId: string, stepId: string, body: UpdateQueuedStepBody): Promise<AutopilotView> {
    return (await call('updateQueuedStep', { params: { id: ideaId, stepId }, body })).queue;
  },
  async removeQueuedStep(ideaId: string, stepId: string): Promise<AutopilotView> {
    return (await call('removeQueuedStep', { params: { id: ideaId, stepId } })).queue;
  },
  async sendQueuedStepNow(ideaId: string, stepId: string): Promise<AutopilotView> {
    return (await call('sendQueuedStepNow', { params: { id: ideaId, stepId } })).queue;
  },
  async setQueueBudget(ideaId: string, maxBudgetUsd: number | null): Promise<AutopilotView> {
    return (await call('updateQueue', { params: { id: ideaId }, body: { maxBudgetUsd } })).queue;
  },
  async resumeQueue(ideaId: string, oneMoreStep: boolean): Promise<AutopilotView> {
    return (await call('resumeQueue', { params: { id: ideaId }, body: { oneMoreStep } })).queue;
  },
  async clearQueue(ideaId: string): Promise<AutopilotView | null> {
    return (await call('clearQueue', { params: { id: ideaId } })).queue;
  },
  /** A question aside (issue 30): taken at once; its answer comes as an `aside:answered` event. */
  async askAside(ideaId: string, body: AskAsideBody): Promise<AsideView> {
    return (await call('askAside', { params: { id: ideaId }, body })).aside;
  },
  /** The idea's checkpoints (issue 13), newest first. */
  async listCheckpoints(ideaId: string): Promise<CheckpointView[]> {
    return (await call('listCheckpoints', { params: { id: ideaId } })).checkpoints;
  },
  /** What a checkpoint changed against its parent, as git's unified diff (cut, with `truncated`, past 2 MiB). */
  async checkpointDiff(ideaId: string, commit: string): Promise<CheckpointDiffResponse> {
    return call('checkpointDiff', { params: { id: ideaId, commit } });
  },
  /** The project becomes what it was at `commit`; the restore's own checkpoint. RUN_IN_PROGRESS during a run. */
  async restoreCheckpoint(ideaId: string, commit: string): Promise<CheckpointView> {
    return (await call('restoreCheckpoint', { params: { id: ideaId, commit } })).checkpoint;
  },
  /** The review comments on a checkpoint's diff (issue 30), sent ones too, each saying whether it is stale. */
  async listReviewComments(ideaId: string, commit: string): Promise<ReviewCommentView[]> {
    return (await call('listReviewComments', { params: { id: ideaId, commit } })).comments;
  },
  async addReviewComment(
    ideaId: string,
    commit: string,
    body: AddReviewCommentBody,
  ): Promise<ReviewCommentView> {
    return (await call('addReviewComment', { params: { id: ideaId, commit }, body })).comment;
  },
  /** REVIEW_COMMENT_SENT (409) for a comment sent already. */
  async editReviewComment(
    ideaId: string,
    commit: string,
    commentId: string,
    text: string,
  ): Promise<ReviewCommentView> {
    const params = { id: ideaId, commit, comment: commentId };
    return (await call('editReviewComment', { params, body: { body: text } })).comment;
  },
  async deleteReviewComment(ideaId: string, commit: string, commentId: string): Promise<void> {
    await call('deleteReviewComment', { params: { id: ideaId, commit, comment: commentId } });
  },
  /** The unsent comments as one build message; what starting a build refuses (RUN_IN_PROGRESS) too. */
  async sendReview(ideaId: string, commit: string): Promise<SendReviewResponse> {
    return call('sendReview', { params: { id: ideaId, commit } });
  },
  /** A directory of the project, relative to it (`''` is the project itself). */
  async listFiles(ideaId: string, path: string): Promise<FileListResponse> {
    return call('listFiles', { params: { id: ideaId }, query: { path } });
  },
  /** A file of the project now, or at the checkpoint `at`. */
  async fileContent(ideaId: string, path: string, at?: string): Promise<FileContentResponse> {
    return call('fileContent', { params: { id: ideaId }, query: { path, at } });
  },
  /** The checkpoints that changed a file, newest first. */
  async fileHistory(ideaId: string, path: string): Promise<CheckpointView[]> {
    return (await call('fileHistory', { params: { id: ideaId }, query: { path } })).checkpoints;
  },
  /** How many terminals the idea has open (issue 31), in any tab or the CLI. */
  async openTerminals(ideaId: string): Promise<number> {
    return (await call('openTerminals', { params: { id: ideaId } })).open;
  },
  /** The idea's preview (issue 14); while it runs, with a fresh one-time link to it (each answer a new one). */
  async preview(ideaId: string): Promise<PreviewView> {
    return call('preview', { params: { id: ideaId } });
  },
  /** PREVIEW_NOT_CONFIGURED (409) until the idea has a preview command and port. */
  async startPreview(ideaId: string): Promise<PreviewView> {
    return call('startPreview', { params: { id: ideaId } });
  },
  async stopPreview(ideaId: string): Promise<PreviewView> {
    return call('stopPreview', { params: { id: ideaId } });
  },
  /** What the preview's command printed, the newest 256 KiB of it. */
  async previewLog(ideaId: string): Promise<PreviewLogResponse> {
    return call('previewLog', { params: { id: ideaId } });
  },
  /** The ports the idea's processes (a running build's, the preview's) listen on, on its host. */
  async listeningPorts(ideaId: string): Promise<ListeningPort[]> {
    return (await call('listeningPorts', { params: { id: ideaId } })).ports;
  },
  /** A one-time link to a preview of a listed port; PREVIEW_PORT_NOT_LISTENING (404) for any other. */
  async previewPortLink(ideaId: string, port: number): Promise<PreviewLinkResponse> {
    return call('previewPortLink', { params: { id: ideaId, port } });
  },
  async hosts(): Promise<HostHealthView[]> {
    return (await call('hosts')).hosts;
  },
  /** A host added in the app (issue 28): HOST_EXISTS for a name taken, INVALID_ARGUMENT for an unknown alias. */
  async addHost(body: AddHostBody): Promise<HostEntryView> {
    return (await call('addHost', { body })).host;
  },
  async updateHost(name: string, body: UpdateHostBody): Promise<HostEntryView> {
    return (await call('updateHost', { params: { name }, body })).host;
  },
  /** HOST_HAS_IDEAS (409) for a host that holds ideas, unless `isConfirmed`. */
  async deleteHost(name: string, isConfirmed = false): Promise<void> {
    await call('deleteHost', { params: { name }, query: isConfirmed ? { confirm: 'true' } : {} });
  },
  /** The host's check, step by step, on a connection of its own. */
  /** A host as configured and its last check (null: never checked); no connection is made. */
  async lastHostCheck(name: string): Promise<HostCheckView | null> {
    return (await call('getHost', { params: { name } })).lastCheck;
  },
  async checkHost(name: string): Promise<HostCheckView> {
    return (await call('checkHost', { params: { name } })).check;
  },
  /** Confirms the key the last check found known nowhere; FINGERPRINT_MISMATCH (409) when the fingerprint differs. */
  async trustHostKey(name: string, fingerprint: string): Promise<HostCheckView> {
    return (await call('trustHostKey', { params: { name }, body: { fingerprint } })).check;
  },
  /** The Host aliases of ~/.ssh/config on the machine running Catalyst. */
  async sshAliases(): Promise<SshAliasesResponse> {
    return call('sshAliases');
  },
  /** Swaps the token for a session (the cookie, and the key kept here); an ApiError with status 401 if refused. */
  async logIn(token: string): Promise<void> {
    storeSessionKey((await call('logIn', { body: { token } })).key);
  },
  /**
   * Swaps a pairing link's code for a session, as logIn swaps the token; PAIRING_CODE_REFUSED (401) for a code
   * that is unknown, used or expired.
   */
  async redeemPairing(code: string): Promise<void> {
    storeSessionKey((await call('redeemPairing', { body: { code } })).key);
  },
  /** A one-time link that signs another device in (a phone, through its QR code); a new one each call. */
  async createPairing(): Promise<PairingLinkResponse> {
    return call('createPairing');
  },
  /** Resolves when the session is accepted; an ApiError with status 401 when it is missing or wrong. */
  async checkLogin(): Promise<void> {
    await call('health');
  },
  /** The signed-in browsers (issue 25), newest login first; this one is `current`. */
  async listSessions(): Promise<BrowserSessionView[]> {
    return (await call('listSessions')).sessions;
  },
  /** Signs a browser out, this one included (then its cookie is cleared too). */
  async endSession(id: string): Promise<void> {
    await call('endSession', { params: { id } });
  },
  /** The VAPID public key this device subscribes to pushes with (base64url). */
  async pushKey(): Promise<string> {
    return (await call('pushKey')).publicKey;
  },
  /** Keeps this device's push subscription on this browser session; again with the same endpoint, its view. */
  async addPushSubscription(body: PushSubscriptionBody): Promise<PushSubscriptionView> {
    return (await call('addPushSubscription', { body })).subscription;
  },
  async removePushSubscription(endpoint: string): Promise<void> {
    await call('removePushSubscription', { body: { endpoint } });
  },
  async mutePushIdea(ideaId: string, endpoint: string, isMuted: boolean): Promise<PushSubscriptionView> {
    return (await call('mutePushIdea', { params: { id: ideaId }, body: { endpoint, isMuted } })).subscription;
  },
  /** Ends this browser's session on the server and forgets its key. */
  async logOut(): Promise<void> {
    await call('logOut');
    clearSessionKey();
  },
};

/** What a person reads for any failure. */
export function describeError(error: unknown): string {
  if (error instanceof ApiError) return error.message;
  return 'Something went wrong. Try again.';
}
