import type {
  AddHostBody,
  AskAsideBody,
  AsideView,
  HostDetailResponse,
  HostCheckView,
  HostEntryView,
  SshAliasesResponse,
  UpdateHostBody,
  AutopilotView,
  CheckpointDiffResponse,
  CheckpointView,
  FileContentResponse,
  FileListResponse,
  CreateIdeaBody,
  HostHealthView,
  IdeaView,
  LiveFrame,
  ListeningPort,
  PreviewLinkResponse,
  PreviewLogResponse,
  PreviewView,
  RelayEvent,
  AddReviewCommentBody,
  ReviewCommentView,
  SendReviewResponse,
  RunMode,
  RunView,
  StartAutopilotBody,
  AddToQueueBody,
  UpdateQueuedStepBody,
  UpdateIdeaBody,
  TerminalCount,
} from '@catalyst/protocol';
import type { PermissionDecision } from '../runs/core/prompt-answers.ts';
import type { SubmittedAnswers } from '../runs/core/question-handler.ts';

export interface IdeaSubscription {
  /**
   * The seq of the newest event when the subscription began (never the seq reservation above it): events up to it
   * were replayed, later ones are live. The `subscribed` frame's `lastSeq`.
   */
  lastSeq: number;
  running: boolean;
  /** The `claude:question` and `claude:permission_request` events still waiting, to send the client again. */
  pending: RelayEvent[];
  unsubscribe(): void;
}

/** What a subscriber receives: the idea's relay events, and the live-only frames of its running run. */
export type IdeaListener = (frame: RelayEvent | LiveFrame) => void;

/** A host as `GET /api/hosts` shows it (protocol rest.ts). */
export type HostHealth = HostHealthView;

/**
 * What the edges (REST routes, the WebSocket hub) need from the service. Every method rejects with a
 * CatalystError whose code says what went wrong (IDEA_NOT_FOUND, HOST_NOT_FOUND, HOST_UNAVAILABLE,
 * RUN_IN_PROGRESS, NO_RUN, …); ids arrive already checked against IDEA_ID_PATTERN.
 *
 * The service by capability: each edge (a group of REST handlers, the WebSocket session) depends on the ports it
 * serves, so a test double of one is as small as that capability. Each port has its own module
 * (`*-capability.ts`), wired in the composition root (wire-services.ts).
 */

/** Ideas and their history: what the list, an idea's page and a subscription read. */
export interface IdeasPort {
  listIdeas(): Promise<IdeaView[]>;
  getIdea(id: string): Promise<IdeaView>;
  createIdea(body: CreateIdeaBody): Promise<IdeaView>;
  updateIdea(id: string, body: UpdateIdeaBody): Promise<IdeaView>;
  /** Refuses with RUN_IN_PROGRESS while a run is active. */
  deleteIdea(id: string): Promise<void>;
  /**
   * Events with seq > sinceSeq, oldest first, at most `limit` and at most what one bounded read of the history
   * holds (fewer than `limit` does not mean the end: an empty page does).
   */
  history(id: string, sinceSeq: number, limit?: number): Promise<RelayEvent[]>;
  /** The newest seq of the idea: a client whose `sinceSeq` is past it holds a history the server does not have. */
  lastSeq(id: string): Promise<number>;
  /**
   * Calls `listener` with every event after `sinceSeq` (replayed from the history first, then live), in seq
   * order, with no gap and no duplicate. Once subscribed it also gets the live-only frames (streaming text), in
   * their place among the live events; those that came before are not replayed.
   */
  subscribe(id: string, sinceSeq: number, listener: IdeaListener): Promise<IdeaSubscription>;
}

/** Runs: starting, following and stopping them, and the prompts (questions, permissions) they wait on. */
export interface RunsPort {
  /** Starts a chat or build run; RUN_IN_PROGRESS (with the run's id in its details) when the idea has one. */
  startRun(
    id: string,
    mode: RunMode,
    message: string,
    options?: { maxBudgetUsd?: number | undefined },
  ): Promise<{ runId: string }>;
  /** Stops the idea's run; NO_RUN when there is none. */
  cancelRun(id: string): Promise<void>;
  /**
   * A run as the history tells it (RUN_NOT_FOUND when it does not); with `waitMs`, once the run has ended or that
   * long has passed, whichever comes first.
   */
  getRun(runId: string, waitMs?: number): Promise<RunView>;
  /** The idea's newest runs, newest first. */
  listRuns(id: string, limit: number): Promise<RunView[]>;
  /** Stops that run: RUN_NOT_FOUND, or NO_RUN when it is not running here. */
  cancelRunById(runId: string): Promise<RunView>;
  /** The prompts of the idea's run still waiting for a person (empty without a run). */
  pendingPrompts(id: string): Promise<RelayEvent[]>;
  /** QUESTION_NOT_FOUND (and nothing changes) unless the question is pending in the idea's run. */
  answerQuestion(id: string, questionId: string, answers: SubmittedAnswers): Promise<void>;
  dismissQuestion(id: string, questionId: string): Promise<void>;
  /** PERMISSION_REQUEST_NOT_FOUND unless the request is pending in the idea's run. */
  answerPermission(id: string, requestId: string, decision: PermissionDecision): Promise<void>;
  /**
   * The page's composer shows `mode` for the idea (issue 30): its next turn's claude is pre-warmed in that mode;
   * IDEA_NOT_FOUND when there is no such idea.
   */
  showMode(id: string, mode: RunMode): Promise<void>;
  /**
   * A person's message from the composer: a run when the idea is idle and no queue runs (its id), queued otherwise
   * (the queue). The idea's messages are taken in the order they came (runs/idea-owners.ts).
   */
  sendMessage(
    id: string,
    mode: RunMode,
    message: string,
  ): Promise<{ runId: string } | { queued: AutopilotView }>;
}

/** Autopilots (issue 12): an idea's runs one after the other. */
export interface AutopilotsPort {
  /** Starts an autopilot on the idea; RUN_IN_PROGRESS while it has a run or an autopilot. */
  startAutopilot(id: string, body: StartAutopilotBody): Promise<AutopilotView>;
  /** The idea's current or last autopilot; null when it never had one. */
  latestAutopilot(id: string): Promise<AutopilotView | null>;
  getAutopilot(autopilotId: string): Promise<AutopilotView>;
  /** Cancels its running step, and skips the rest; NO_RUN once it has ended. */
  cancelAutopilot(autopilotId: string): Promise<AutopilotView>;
  /** The queue of next messages (issue 30): the idea's running or paused autopilot, or null. */
  queue(id: string): Promise<AutopilotView | null>;
  /** Queues a message (sent at once when the idea is idle and nothing waits). */
  addToQueue(id: string, body: AddToQueueBody): Promise<AutopilotView>;
  /** QUEUE_STEP_NOT_FOUND unless the step waits in the idea's queue. */
  updateQueuedStep(id: string, stepId: string, body: UpdateQueuedStepBody): Promise<AutopilotView>;
  removeQueuedStep(id: string, stepId: string): Promise<AutopilotView>;
  sendQueuedStepNow(id: string, stepId: string): Promise<AutopilotView>;
  /** NO_QUEUE when nothing runs or waits. */
  setQueueBudget(id: string, maxBudgetUsd: number | null): Promise<AutopilotView>;
  resumeQueue(id: string, options: { oneMoreStep: boolean }): Promise<AutopilotView>;
  clearQueue(id: string): Promise<AutopilotView | null>;
}

/** Checkpoints and the project's files (issue 13). */
export interface FilesPort {
  /** The idea's checkpoints, newest first (issue 13). */
  listCheckpoints(id: string): Promise<CheckpointView[]>;
  /** CHECKPOINT_NOT_FOUND unless `commit` is one of the idea's checkpoints; INVALID_ARGUMENT when malformed. */
  checkpointDiff(id: string, commit: string): Promise<CheckpointDiffResponse>;
  /** `project/` as it was at the checkpoint, as a new one; RUN_IN_PROGRESS while a run or an autopilot is on. */
  restoreCheckpoint(id: string, commit: string): Promise<CheckpointView>;
  /** A directory of `project/`; INVALID_PATH for a path that leaves it, PATH_NOT_FOUND for a missing one. */
  listFiles(id: string, path: string): Promise<FileListResponse>;
  /** A file of `project/`, now or at a checkpoint (`at`). */
  fileContent(id: string, path: string, at?: string): Promise<FileContentResponse>;
  /** The checkpoints that changed the file, newest first. */
  fileHistory(id: string, path: string): Promise<CheckpointView[]>;
}

/** Review comments on a checkpoint's diff (issue 30); `commit` is checked like FilesPort's. */
export interface ReviewsPort {
  /** The checkpoint's comments, sent ones too, each with whether its lines have changed since. */
  listReviewComments(id: string, commit: string): Promise<ReviewCommentView[]>;
  /** INVALID_ARGUMENT for lines the file does not have on that side, PATH_NOT_FOUND for a file it does not have. */
  addReviewComment(id: string, commit: string, body: AddReviewCommentBody): Promise<ReviewCommentView>;
  /** REVIEW_COMMENT_NOT_FOUND, or REVIEW_COMMENT_SENT for one sent already. */
  editReviewComment(id: string, commit: string, commentId: string, body: string): Promise<ReviewCommentView>;
  deleteReviewComment(id: string, commit: string, commentId: string): Promise<void>;
  /** The unsent comments as one build message, then marked sent; what sending refuses (RUN_IN_PROGRESS, …) too. */
  sendReview(id: string, commit: string): Promise<SendReviewResponse>;
}

/** Previews (issue 14): the idea's dev server, its log, and links to the ports its processes listen on. */
export interface PreviewsPort {
  /** The idea's preview (issue 14); `requestHost` is the Host the API was reached at, for the link. */
  preview(id: string, requestHost?: string): Promise<PreviewView>;
  /** PREVIEW_NOT_CONFIGURED without a command and a port. */
  startPreview(id: string, requestHost?: string): Promise<PreviewView>;
  stopPreview(id: string, requestHost?: string): Promise<PreviewView>;
  previewLog(id: string): Promise<PreviewLogResponse>;
  listeningPorts(id: string): Promise<ListeningPort[]>;
  /** PREVIEW_PORT_NOT_LISTENING unless a process of the idea listens on `port`. */
  previewPortLink(id: string, port: number, requestHost?: string): Promise<PreviewLinkResponse>;
}

/** The hosts: each reachable or not, with its preflight; those added in the app managed here (issue 28). */
export interface HostsPort {
  hosts(): Promise<HostHealth[]>;
  /** The host as configured and its last check (none yet: null); no connection is made. */
  getHost(name: string): Promise<HostDetailResponse>;
  /** HOST_EXISTS for a name taken; INVALID_ARGUMENT for an alias ~/.ssh/config does not have. */
  addHost(body: AddHostBody): Promise<HostEntryView>;
  /** HOST_READ_ONLY for a host of CATALYST_CONFIG_FILE; RUN_IN_PROGRESS while a run goes on it. */
  updateHost(name: string, body: UpdateHostBody): Promise<HostEntryView>;
  /** HOST_HAS_IDEAS unless confirmed when it holds ideas (they stay on the VM). */
  deleteHost(name: string, options: { confirm: boolean }): Promise<void>;
  /** Step by step, on a connection of its own. */
  checkHost(name: string): Promise<HostCheckView>;
  /** Confirms the key the last check found known nowhere, if `fingerprint` is its own; then checks again. */
  trustHostKey(name: string, fingerprint: string): Promise<HostCheckView>;
  sshAliases(): Promise<SshAliasesResponse>;
}

/** Question asides (issue 30): questions to a read-only fork of the idea's session, beside its runs. */
export interface AsidesPort {
  /**
   * Starts the aside and answers at once with its view (`asking`); its answer comes as an `aside:answered` event.
   * NO_SESSION before the idea's first run, TOO_MANY_ASIDES past MAX_ASIDES_PER_IDEA, BUDGET_EXCEEDED when spent.
   */
  askAside(id: string, body: AskAsideBody): Promise<AsideView>;
  /** The idea's newest asides, oldest first, from its history. */
  listAsides(id: string): Promise<AsideView[]>;
}

/** Every capability, as the composition root hands them to the edges. */
/** The idea's open terminals (issue 31), as the REST API counts them; the sockets use the service itself. */
export interface TerminalCountPort {
  /** IDEA_NOT_FOUND for an unknown idea. */
  openCount(ideaId: string): Promise<TerminalCount>;
}

export interface Services {
  ideas: IdeasPort;
  runs: RunsPort;
  autopilots: AutopilotsPort;
  files: FilesPort;
  reviews: ReviewsPort;
  previews: PreviewsPort;
  hosts: HostsPort;
  asides: AsidesPort;
  terminals: TerminalCountPort;
}

/** What the WebSocket serves: subscriptions to ideas, and runs with their prompts. */
export type WsServices = Pick<Services, 'ideas' | 'runs' | 'autopilots'>;
