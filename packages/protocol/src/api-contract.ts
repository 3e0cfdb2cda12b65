import { z } from 'zod';
import { AskAsideBodySchema, AsideListResponseSchema, AsideResponseSchema } from './asides.ts';
import {
  AutopilotIdSchema,
  AutopilotResponseSchema,
  LatestAutopilotResponseSchema,
  StartAutopilotBodySchema,
  AddToQueueBodySchema,
  QUEUE_STEP_ID_PATTERN,
  QueueActionResponseSchema,
  QueueResponseSchema,
  ResumeQueueBodySchema,
  UpdateQueueBodySchema,
  UpdateQueuedStepBodySchema,
} from './autopilot.ts';
import {
  CommitIdSchema,
  CheckpointDiffResponseSchema,
  CheckpointListResponseSchema,
  CheckpointRestoreResponseSchema,
  FileContentResponseSchema,
  FileHistoryResponseSchema,
  FileListResponseSchema,
} from './checkpoints.ts';
import type { ErrorCode } from './error-codes.ts';
import {
  AddReviewCommentBodySchema,
  EditReviewCommentBodySchema,
  ReviewCommentIdSchema,
  ReviewCommentListResponseSchema,
  ReviewCommentResponseSchema,
  SendReviewResponseSchema,
} from './reviews.ts';
import {
  AddHostBodySchema,
  DeleteHostQuerySchema,
  HostCheckResponseSchema,
  HostDetailResponseSchema,
  HostEntryResponseSchema,
  HostNameSchema,
  SshAliasesResponseSchema,
  TrustHostKeyBodySchema,
  UpdateHostBodySchema,
} from './hosts.ts';
import { CreateIdeaBodySchema, IdeaIdSchema, UpdateIdeaBodySchema } from './idea.ts';
import {
  ListeningPortsResponseSchema,
  PreviewLinkResponseSchema,
  PreviewLogResponseSchema,
  PreviewPortSchema,
  PreviewViewSchema,
} from './previews.ts';
import { QuestionEventSchema } from './relay-events.ts';
import { TerminalCountSchema } from './terminal-frames.ts';
import { PairingLinkResponseSchema, RedeemPairingBodySchema } from './pairing.ts';
import {
  ChooseOptionBodySchema,
  PermissionDecisionBodySchema,
  PushEndpointBodySchema,
  PushKeyResponseSchema,
  PushMuteBodySchema,
  PushSubscriptionBodySchema,
  PushSubscriptionResponseSchema,
} from './push.ts';
import {
  BrowserSessionIdSchema,
  BrowserSessionListResponseSchema,
  EventsResponseSchema,
  HostsResponseSchema,
  IdeaListResponseSchema,
  IdeaResponseSchema,
  LoginBodySchema,
  LoginResponseSchema,
} from './rest.ts';
import {
  DEFAULT_RUN_LIST_LIMIT,
  MAX_RUN_LIST_LIMIT,
  MAX_RUN_WAIT_MS,
  RunIdSchema,
  RunListResponseSchema,
  RunResponseSchema,
  StartRunBodySchema,
} from './runs.ts';

/**
 * Catalyst's REST API, every route declared once (issue 27): its method and path, what its path, query and body
 * hold, what it answers and which error codes it may answer. The server binds its handlers from this list (a route
 * without a handler, or a handler answering another shape, does not type-check: backend server/api-binding.ts); the
 * web app and the `catalyst` command build their requests and parse the answers from it (no path written by hand);
 * `GET /api/openapi.json` is generated from it (openapi.ts). Every answer that is not 2xx is `ApiErrorBody`.
 */

export type HttpMethod = 'GET' | 'POST' | 'PATCH' | 'DELETE';

/** A path segment `:name`: its schema (from the URL's decoded text) and the sentence a bad one is refused with. */
export interface PathParam<T = unknown> {
  readonly schema: z.ZodType<T, string>;
  readonly invalid: (text: string) => string;
  readonly description: string;
}

export interface ApiRoute {
  readonly method: HttpMethod;
  /** Absolute, with `:name` segments: `/api/ideas/:id/runs`; only a public route is outside /api. */
  readonly path: `/${string}`;
  readonly summary: string;
  /**
   * Needs neither the token nor a session: the routes a browser gets in by (`POST /login`, `POST /pair`), outside
   * /api. Every other route is under /api, behind the token check.
   */
  readonly isPublic?: true;
  readonly params?: Readonly<Record<string, PathParam>>;
  /** The query string's values (text in, typed out). */
  readonly query?: z.ZodType;
  readonly body?: z.ZodType;
  /** The success status; 204 answers no body. */
  readonly status: 200 | 201 | 202 | 204;
  readonly response?: z.ZodType;
  /**
   * What else it may answer, besides what every route may (FORBIDDEN_ORIGIN, INTERNAL, and under /api
   * UNAUTHORIZED).
   */
  readonly errors: readonly ErrorCode[];
  /** An error answered with another status than its code's own (statusForCode), and when. */
  readonly otherStatuses?: readonly {
    readonly code: ErrorCode;
    readonly status: number;
    readonly when: string;
  }[];
}

const wholeNumber = (digits: number, what: string) =>
  z
    .string()
    .regex(new RegExp(`^\\d{1,${String(digits)}}$`), `must be ${what}`)
    .transform(Number);

/** `/api/ideas/:id/events`: the events after `sinceSeq`, oldest first. */
export const DEFAULT_EVENTS_LIMIT = 1000;
export const MAX_EVENTS_LIMIT = 10_000;
export const EventsQuerySchema = z.strictObject({
  sinceSeq: wholeNumber(15, 'a whole number').pipe(z.int().min(0)).default(0),
  limit: wholeNumber(15, 'a whole number')
    .pipe(z.int().min(1).max(MAX_EVENTS_LIMIT))
    .default(DEFAULT_EVENTS_LIMIT),
});
export const RunsQuerySchema = z.strictObject({
  limit: wholeNumber(15, 'a whole number')
    .pipe(z.int().min(1).max(MAX_RUN_LIST_LIMIT))
    .default(DEFAULT_RUN_LIST_LIMIT),
});
export const RunWaitQuerySchema = z.strictObject({
  waitMs: wholeNumber(6, 'a whole number of milliseconds')
    .pipe(z.int().min(0).max(MAX_RUN_WAIT_MS))
    .default(0),
});
/** Paths are at most 4,096 bytes (the backend's core/project-path.ts); the query's bound only keeps junk out. */
const ProjectPathSchema = z.string().max(16_384);
export const FileListQuerySchema = z.strictObject({ path: ProjectPathSchema.default('') });
export const FileContentQuerySchema = z.strictObject({
  path: ProjectPathSchema,
  at: z.string().max(64).optional(),
});
export const FileHistoryQuerySchema = z.strictObject({ path: ProjectPathSchema });

export const HealthResponseSchema = z.object({ ok: z.literal(true) });
export const QuestionListResponseSchema = z.object({ questions: z.array(QuestionEventSchema) });
export const QuestionResponseSchema = z.object({ question: QuestionEventSchema });

const ideaId: PathParam<string> = {
  schema: IdeaIdSchema,
  invalid: () =>
    'The idea id in the URL is not valid: ids look like idea- followed by 16 lower-case letters and digits.',
  description: 'idea-<16 lower-case letters and digits>',
};
const runId: PathParam<string> = {
  schema: RunIdSchema,
  invalid: () => 'The run id in the URL is not valid: run ids look like run-<16 letters and digits>-<uuid>.',
  description: 'run-<the idea id’s 16 characters>-<uuid>',
};
const autopilotId: PathParam<string> = {
  schema: AutopilotIdSchema,
  invalid: () =>
    'The autopilot id in the URL is not valid: autopilot ids look like ap-<16 letters and digits>-<uuid>.',
  description: 'ap-<the idea id’s 16 characters>-<uuid>',
};
const stepId: PathParam<string> = {
  schema: z.string().regex(QUEUE_STEP_ID_PATTERN),
  invalid: () => 'The step id in the URL is not valid: step ids are letters, digits and dashes.',
  description: 'a queued step’s id, as the queue shows it',
};
const sessionId: PathParam<string> = {
  schema: BrowserSessionIdSchema,
  invalid: () =>
    'The session id in the URL is not valid: ids look like session- followed by 16 lower-case hex digits.',
  description: 'session-<16 lower-case hex digits>',
};
/** A full commit id; the service answers 404 when it is not one of the idea's checkpoints. */
const hostName: PathParam<string> = {
  schema: HostNameSchema,
  invalid: () =>
    'The host name in the URL is not valid: names are 1–63 lower-case letters, digits and dashes.',
  description: 'a host name: lower-case letters, digits and dashes',
};
const commit: PathParam<string> = {
  schema: CommitIdSchema,
  invalid: () => 'A checkpoint is named by its full commit id: 40 (or 64) hex digits.',
  description: 'a checkpoint’s full commit id: 40 (or 64) hex digits',
};
/** A review comment's id (issue 30); `:comment` in a path, as `:commit` names a checkpoint. */
const comment: PathParam<string> = {
  schema: ReviewCommentIdSchema,
  invalid: () =>
    'The comment id in the URL is not valid: comment ids look like rc- followed by 16 hex digits.',
  description: 'rc-<16 lower-case hex digits>',
};
const port: PathParam<number> = {
  schema: z
    .string()
    .regex(/^\d{1,5}$/)
    .transform(Number)
    .pipe(PreviewPortSchema),
  invalid: (text) => `${JSON.stringify(text)} is not a TCP port.`,
  description: 'a TCP port, 1 to 65535',
};
const questionId: PathParam<string> = {
  schema: z.string().min(1).max(200),
  invalid: () => 'Not a question id.',
  description: 'the question’s id',
};

/** What any route that reaches a host may answer: the host down, unreachable, refusing, or too slow. */
const HOST: readonly ErrorCode[] = [
  'HOST_UNAVAILABLE',
  'HOST_TIMED_OUT',
  'SSH_CONNECT_FAILED',
  'SSH_AUTH_FAILED',
  'SSH_HOST_KEY_MISMATCH',
  'SSH_HOST_KEY_MISSING',
  'SSH_HOST_KEY_UNKNOWN',
  'SSH_HOST_KEY_REVOKED',
  'SSH_CONFIG_INVALID',
  'SSH_CONFIG_UNSUPPORTED',
  'CONNECTION_LOST',
  'FILE_ERROR',
];
/** Errors of any route that finds an idea by its id on its host. */
const IDEA: readonly ErrorCode[] = ['INVALID_ARGUMENT', 'IDEA_NOT_FOUND', ...HOST];

/** The routes under /api: each needs the token (`Authorization: Bearer`) or a browser session. */
export const GUARDED_API = {
  health: {
    method: 'GET',
    path: '/api/health',
    summary: 'Whether the token (or session) is accepted.',
    status: 200,
    response: HealthResponseSchema,
    errors: [],
  },
  openapi: {
    method: 'GET',
    path: '/api/openapi.json',
    summary: 'This API as an OpenAPI 3.1 document.',
    status: 200,
    response: z.record(z.string(), z.unknown()),
    errors: [],
  },
  hosts: {
    method: 'GET',
    path: '/api/hosts',
    summary: 'Every host: reachable or not, and its preflight (where claude is, its version, problems).',
    status: 200,
    response: HostsResponseSchema,
    errors: [],
  },
  addHost: {
    method: 'POST',
    path: '/api/hosts',
    summary:
      'Adds an SSH host by its ~/.ssh/config alias or as user@host[:port]; kept in Catalyst’s config dir, used at once. Check it next.',
    body: AddHostBodySchema,
    status: 201,
    response: HostEntryResponseSchema,
    errors: ['INVALID_ARGUMENT', 'HOST_EXISTS', 'SSH_CONFIG_INVALID', 'SSH_CONFIG_UNSUPPORTED'],
  },
  getHost: {
    method: 'GET',
    path: '/api/hosts/:name',
    summary:
      'A host as configured and its last check (run when it was added, at start for hosts added in the app, or on request); no connection is made.',
    params: { name: hostName },
    status: 200,
    response: HostDetailResponseSchema,
    errors: ['INVALID_ARGUMENT', 'HOST_NOT_FOUND'],
  },
  updateHost: {
    method: 'PATCH',
    path: '/api/hosts/:name',
    summary:
      'Changes a host added in the app (its target, ideas root, claude path), or makes it the default.',
    params: { name: hostName },
    body: UpdateHostBodySchema,
    status: 200,
    response: HostEntryResponseSchema,
    errors: ['INVALID_ARGUMENT', 'HOST_NOT_FOUND', 'HOST_READ_ONLY', 'RUN_IN_PROGRESS', 'SSH_CONFIG_INVALID'],
  },
  deleteHost: {
    method: 'DELETE',
    path: '/api/hosts/:name',
    summary:
      'Removes a host added in the app; one that holds ideas only with `confirm=true` (the ideas stay on the VM).',
    params: { name: hostName },
    query: DeleteHostQuerySchema,
    status: 204,
    errors: ['INVALID_ARGUMENT', 'HOST_NOT_FOUND', 'HOST_READ_ONLY', 'HOST_HAS_IDEAS', 'RUN_IN_PROGRESS'],
  },
  checkHost: {
    method: 'POST',
    path: '/api/hosts/:name/check',
    summary:
      'Checks a host step by step: resolve, connect (each jump), host key, authentication, claude, logged in, tools, disk.',
    params: { name: hostName },
    status: 200,
    response: HostCheckResponseSchema,
    errors: ['INVALID_ARGUMENT', 'HOST_NOT_FOUND'],
  },
  trustHostKey: {
    method: 'POST',
    path: '/api/hosts/:name/trust',
    summary:
      'Confirms the host key the last check found known nowhere, by its fingerprint as the VM’s console shows it; writes it to Catalyst’s own known_hosts and checks again.',
    params: { name: hostName },
    body: TrustHostKeyBodySchema,
    status: 200,
    response: HostCheckResponseSchema,
    errors: ['INVALID_ARGUMENT', 'HOST_NOT_FOUND', 'FINGERPRINT_MISMATCH', 'SSH_HOST_KEY_UNKNOWN'],
  },
  sshAliases: {
    method: 'GET',
    path: '/api/ssh-config/aliases',
    summary: 'The Host aliases of ~/.ssh/config on the machine running Catalyst, to add a host by.',
    status: 200,
    response: SshAliasesResponseSchema,
    errors: [],
  },
  listSessions: {
    method: 'GET',
    path: '/api/sessions',
    summary: 'The signed-in browsers, newest login first; the requesting one is `current`.',
    status: 200,
    response: BrowserSessionListResponseSchema,
    errors: [],
  },
  endSession: {
    method: 'DELETE',
    path: '/api/sessions/:id',
    summary: 'Signs that browser out (its cookie too when it is the requesting one).',
    params: { id: sessionId },
    status: 204,
    errors: ['INVALID_ARGUMENT'],
    otherStatuses: [{ code: 'INVALID_ARGUMENT', status: 404, when: 'no such signed-in browser' }],
  },
  logOut: {
    method: 'POST',
    path: '/api/logout',
    summary: 'Signs the requesting browser out and clears its cookie; a Bearer client has no session to end.',
    status: 204,
    errors: ['INVALID_ARGUMENT'],
  },
  createPairing: {
    method: 'POST',
    path: '/api/pairing',
    summary:
      'A one-time link (`/pair#code=…`) that signs another device in, e.g. a phone through its QR code: it works once, for 10 minutes.',
    status: 201,
    response: PairingLinkResponseSchema,
    errors: [],
  },
  pushKey: {
    method: 'GET',
    path: '/api/push/key',
    summary: 'The VAPID public key a page subscribes its device with (`PushManager.subscribe`).',
    status: 200,
    response: PushKeyResponseSchema,
    errors: [],
  },
  addPushSubscription: {
    method: 'POST',
    path: '/api/push/subscriptions',
    summary:
      'Keeps this browser’s push subscription (`PushSubscription.toJSON()`): pushes reach the device with no tab open. A browser session only, not the token.',
    body: PushSubscriptionBodySchema,
    status: 201,
    response: PushSubscriptionResponseSchema,
    errors: ['INVALID_ARGUMENT', 'UNSAFE_ARGUMENT'],
  },
  removePushSubscription: {
    method: 'POST',
    path: '/api/push/subscriptions/remove',
    summary: 'Forgets this browser’s subscription at `endpoint`: no more pushes to that device.',
    body: PushEndpointBodySchema,
    status: 204,
    errors: ['INVALID_ARGUMENT'],
  },
  mutePushIdea: {
    method: 'POST',
    path: '/api/push/mutes/:id',
    summary: 'Mutes (or unmutes) one idea on one device: no push about it reaches that subscription.',
    params: { id: ideaId },
    body: PushMuteBodySchema,
    status: 200,
    response: PushSubscriptionResponseSchema,
    errors: ['INVALID_ARGUMENT'],
  },
  listIdeas: {
    method: 'GET',
    path: '/api/ideas',
    summary: 'Every idea on every host, newest activity first.',
    status: 200,
    response: IdeaListResponseSchema,
    errors: [],
  },
  createIdea: {
    method: 'POST',
    path: '/api/ideas',
    summary: 'A new idea on a host (the default one unless named).',
    body: CreateIdeaBodySchema,
    status: 201,
    response: IdeaResponseSchema,
    errors: ['INVALID_ARGUMENT', 'HOST_NOT_FOUND', ...HOST],
  },
  getIdea: {
    method: 'GET',
    path: '/api/ideas/:id',
    summary: 'One idea.',
    params: { id: ideaId },
    status: 200,
    response: IdeaResponseSchema,
    errors: IDEA,
  },
  updateIdea: {
    method: 'PATCH',
    path: '/api/ideas/:id',
    summary: 'Changes an idea’s title, description or policies.',
    params: { id: ideaId },
    body: UpdateIdeaBodySchema,
    status: 200,
    response: IdeaResponseSchema,
    errors: IDEA,
  },
  deleteIdea: {
    method: 'DELETE',
    path: '/api/ideas/:id',
    summary: 'Deletes an idea and its folder on its host.',
    params: { id: ideaId },
    status: 204,
    errors: [...IDEA, 'RUN_IN_PROGRESS'],
  },
  events: {
    method: 'GET',
    path: '/api/ideas/:id/events',
    summary: 'The idea’s history after `sinceSeq`, oldest first.',
    params: { id: ideaId },
    query: EventsQuerySchema,
    status: 200,
    response: EventsResponseSchema,
    errors: IDEA,
  },
  askAside: {
    method: 'POST',
    path: '/api/ideas/:id/asides',
    summary:
      'Asks a question aside: a read-only fork of the idea’s Claude session answers it; runs are not disturbed.',
    params: { id: ideaId },
    body: AskAsideBodySchema,
    status: 202,
    response: AsideResponseSchema,
    errors: [...IDEA, 'NO_SESSION', 'TOO_MANY_ASIDES', 'BUDGET_EXCEEDED', 'RUN_IN_PROGRESS'],
  },
  listAsides: {
    method: 'GET',
    path: '/api/ideas/:id/asides',
    summary: 'The idea’s asides, oldest first, from its history.',
    params: { id: ideaId },
    status: 200,
    response: AsideListResponseSchema,
    errors: IDEA,
  },
  startRun: {
    method: 'POST',
    path: '/api/ideas/:id/runs',
    summary: 'Starts a chat or build run.',
    params: { id: ideaId },
    body: StartRunBodySchema,
    status: 202,
    response: RunResponseSchema,
    errors: [...IDEA, 'RUN_IN_PROGRESS', 'BUDGET_EXCEEDED', 'SESSION_BUSY', 'RUN_START_FAILED'],
  },
  listRuns: {
    method: 'GET',
    path: '/api/ideas/:id/runs',
    summary: 'The idea’s runs, newest first.',
    params: { id: ideaId },
    query: RunsQuerySchema,
    status: 200,
    response: RunListResponseSchema,
    errors: IDEA,
  },
  startAutopilot: {
    method: 'POST',
    path: '/api/ideas/:id/autopilot',
    summary: 'Starts an autopilot: its steps run one after the other.',
    params: { id: ideaId },
    body: StartAutopilotBodySchema,
    status: 202,
    response: AutopilotResponseSchema,
    errors: [...IDEA, 'RUN_IN_PROGRESS', 'BUDGET_EXCEEDED'],
  },
  latestAutopilot: {
    method: 'GET',
    path: '/api/ideas/:id/autopilot',
    summary: 'The idea’s current or last autopilot; null when it never had one.',
    params: { id: ideaId },
    status: 200,
    response: LatestAutopilotResponseSchema,
    errors: IDEA,
  },
  getQueue: {
    method: 'GET',
    path: '/api/ideas/:id/queue',
    summary: 'The idea’s queue of next messages: its running or paused autopilot; null when nothing waits.',
    params: { id: ideaId },
    status: 200,
    response: QueueResponseSchema,
    errors: IDEA,
  },
  addToQueue: {
    method: 'POST',
    path: '/api/ideas/:id/queue',
    summary:
      'Queues a message: sent at once when the idea is idle and nothing waits, after the queue otherwise; ' +
      '`sendNow` stops the turn that runs and sends it next.',
    params: { id: ideaId },
    body: AddToQueueBodySchema,
    status: 202,
    response: QueueActionResponseSchema,
    errors: [...IDEA, 'BUDGET_EXCEEDED', 'SESSION_BUSY', 'RUN_START_FAILED'],
  },
  updateQueue: {
    method: 'PATCH',
    path: '/api/ideas/:id/queue',
    summary: 'Sets the queue’s budget; a queue paused by its budget goes on once the budget allows.',
    params: { id: ideaId },
    body: UpdateQueueBodySchema,
    status: 200,
    response: QueueActionResponseSchema,
    errors: [...IDEA, 'NO_QUEUE'],
  },
  clearQueue: {
    method: 'DELETE',
    path: '/api/ideas/:id/queue',
    summary: 'Removes every waiting message (the turn that runs goes on); a paused queue ends.',
    params: { id: ideaId },
    status: 200,
    response: QueueResponseSchema,
    errors: IDEA,
  },
  resumeQueue: {
    method: 'POST',
    path: '/api/ideas/:id/queue/resume',
    summary: 'Goes on with a paused queue; `oneMoreStep` runs one step past its budget.',
    params: { id: ideaId },
    body: ResumeQueueBodySchema,
    status: 202,
    response: QueueActionResponseSchema,
    errors: [...IDEA, 'NO_QUEUE', 'BUDGET_EXCEEDED'],
  },
  updateQueuedStep: {
    method: 'PATCH',
    path: '/api/ideas/:id/queue/:stepId',
    summary: 'Edits a waiting message: its text, its mode, or its place (0: next).',
    params: { id: ideaId, stepId },
    body: UpdateQueuedStepBodySchema,
    status: 200,
    response: QueueActionResponseSchema,
    errors: [...IDEA, 'QUEUE_STEP_NOT_FOUND', 'NO_QUEUE'],
  },
  removeQueuedStep: {
    method: 'DELETE',
    path: '/api/ideas/:id/queue/:stepId',
    summary: 'Removes a waiting message.',
    params: { id: ideaId, stepId },
    status: 200,
    response: QueueActionResponseSchema,
    errors: [...IDEA, 'QUEUE_STEP_NOT_FOUND', 'NO_QUEUE'],
  },
  sendQueuedStepNow: {
    method: 'POST',
    path: '/api/ideas/:id/queue/:stepId/send-now',
    summary: 'Stops the turn that runs (as Cancel does) and sends this waiting message next.',
    params: { id: ideaId, stepId },
    status: 202,
    response: QueueActionResponseSchema,
    errors: [...IDEA, 'QUEUE_STEP_NOT_FOUND', 'NO_QUEUE'],
  },
  listQuestions: {
    method: 'GET',
    path: '/api/ideas/:id/questions',
    summary: 'The questions of the idea’s run still waiting for an answer.',
    params: { id: ideaId },
    status: 200,
    response: QuestionListResponseSchema,
    errors: IDEA,
  },
  getQuestion: {
    method: 'GET',
    path: '/api/ideas/:id/questions/:questionId',
    summary: 'One question still waiting for an answer.',
    params: {
      id: ideaId,
      questionId,
    },
    status: 200,
    response: QuestionResponseSchema,
    errors: [...IDEA, 'QUESTION_NOT_FOUND'],
  },
  chooseOption: {
    method: 'POST',
    path: '/api/ideas/:id/questions/:questionId/choose',
    summary:
      'Answers a waiting question of two options at most with the option at `option` (0 or 1), as a click on it in the page would: what a notification’s action sends.',
    params: {
      id: ideaId,
      questionId,
    },
    body: ChooseOptionBodySchema,
    status: 204,
    errors: [...IDEA, 'QUESTION_NOT_FOUND', 'NO_RUN'],
  },
  decidePermission: {
    method: 'POST',
    path: '/api/ideas/:id/permissions/:requestId',
    summary:
      'Allows or denies a waiting permission request, as the page’s buttons do: what a notification’s action sends.',
    params: {
      id: ideaId,
      requestId: {
        schema: z.string().min(1).max(200),
        invalid: () => 'Not a permission request id.',
        description: 'the permission request’s id',
      } satisfies PathParam<string>,
    },
    body: PermissionDecisionBodySchema,
    status: 204,
    errors: [...IDEA, 'PERMISSION_REQUEST_NOT_FOUND', 'NO_RUN'],
  },
  getRun: {
    method: 'GET',
    path: '/api/runs/:runId',
    summary: 'A run; with `waitMs` the answer waits until the run ends or that long passes.',
    params: { runId },
    query: RunWaitQuerySchema,
    status: 200,
    response: RunResponseSchema,
    errors: ['INVALID_ARGUMENT', 'RUN_NOT_FOUND', ...HOST],
  },
  cancelRun: {
    method: 'POST',
    path: '/api/runs/:runId/cancel',
    summary: 'Cancels a run: Claude and everything it started on the host stop.',
    params: { runId },
    status: 202,
    response: RunResponseSchema,
    errors: ['INVALID_ARGUMENT', 'RUN_NOT_FOUND', 'NO_RUN', ...HOST],
  },
  getAutopilot: {
    method: 'GET',
    path: '/api/autopilots/:autopilotId',
    summary: 'An autopilot.',
    params: { autopilotId },
    status: 200,
    response: AutopilotResponseSchema,
    errors: ['INVALID_ARGUMENT', 'AUTOPILOT_NOT_FOUND', ...HOST],
  },
  cancelAutopilot: {
    method: 'POST',
    path: '/api/autopilots/:autopilotId/cancel',
    summary: 'Cancels an autopilot: the running step is cancelled, the rest skipped.',
    params: { autopilotId },
    status: 202,
    response: AutopilotResponseSchema,
    errors: ['INVALID_ARGUMENT', 'AUTOPILOT_NOT_FOUND', 'NO_RUN', ...HOST],
  },
  listCheckpoints: {
    method: 'GET',
    path: '/api/ideas/:id/checkpoints',
    summary: 'The idea’s checkpoints, newest first.',
    params: { id: ideaId },
    status: 200,
    response: CheckpointListResponseSchema,
    errors: IDEA,
  },
  checkpointDiff: {
    method: 'GET',
    path: '/api/ideas/:id/checkpoints/:commit/diff',
    summary: 'What a checkpoint changed against its parent, as a unified diff.',
    params: { id: ideaId, commit },
    status: 200,
    response: CheckpointDiffResponseSchema,
    errors: [...IDEA, 'CHECKPOINT_NOT_FOUND', 'CHECKPOINT_FAILED'],
  },
  restoreCheckpoint: {
    method: 'POST',
    path: '/api/ideas/:id/checkpoints/:commit/restore',
    summary: 'The project becomes what it was at a checkpoint, recorded as a new one.',
    params: { id: ideaId, commit },
    status: 200,
    response: CheckpointRestoreResponseSchema,
    errors: [...IDEA, 'CHECKPOINT_NOT_FOUND', 'CHECKPOINT_FAILED', 'RUN_IN_PROGRESS'],
  },
  listReviewComments: {
    method: 'GET',
    path: '/api/ideas/:id/reviews/:commit/comments',
    summary:
      'The review comments on a checkpoint’s diff, sent ones too, each marked stale when its lines have changed since.',
    params: { id: ideaId, commit },
    status: 200,
    response: ReviewCommentListResponseSchema,
    errors: [...IDEA, 'CHECKPOINT_NOT_FOUND'],
  },
  addReviewComment: {
    method: 'POST',
    path: '/api/ideas/:id/reviews/:commit/comments',
    summary: 'Comments on a line or a range of lines of a checkpoint’s diff (new lines, or deleted ones).',
    params: { id: ideaId, commit },
    body: AddReviewCommentBodySchema,
    status: 201,
    response: ReviewCommentResponseSchema,
    errors: [...IDEA, 'CHECKPOINT_NOT_FOUND', 'CHECKPOINT_FAILED', 'INVALID_PATH', 'PATH_NOT_FOUND'],
  },
  editReviewComment: {
    method: 'PATCH',
    path: '/api/ideas/:id/reviews/:commit/comments/:comment',
    summary: 'Changes the text of a comment not sent yet.',
    params: { id: ideaId, commit, comment },
    body: EditReviewCommentBodySchema,
    status: 200,
    response: ReviewCommentResponseSchema,
    errors: [...IDEA, 'REVIEW_COMMENT_NOT_FOUND', 'REVIEW_COMMENT_SENT'],
  },
  deleteReviewComment: {
    method: 'DELETE',
    path: '/api/ideas/:id/reviews/:commit/comments/:comment',
    summary: 'Deletes a comment, sent or not.',
    params: { id: ideaId, commit, comment },
    status: 204,
    errors: [...IDEA, 'REVIEW_COMMENT_NOT_FOUND'],
  },
  sendReview: {
    method: 'POST',
    path: '/api/ideas/:id/reviews/:commit/send',
    summary:
      'Sends the checkpoint’s unsent comments as one build message quoting each (file, lines, text); they are marked sent.',
    params: { id: ideaId, commit },
    status: 200,
    response: SendReviewResponseSchema,
    errors: [
      ...IDEA,
      'CHECKPOINT_NOT_FOUND',
      'RUN_IN_PROGRESS',
      'BUDGET_EXCEEDED',
      'SESSION_BUSY',
      'RUN_START_FAILED',
    ],
  },
  listFiles: {
    method: 'GET',
    path: '/api/ideas/:id/files',
    summary: 'A directory of the project (`` is the project itself).',
    params: { id: ideaId },
    query: FileListQuerySchema,
    status: 200,
    response: FileListResponseSchema,
    errors: [...IDEA, 'INVALID_PATH', 'PATH_NOT_FOUND'],
  },
  fileContent: {
    method: 'GET',
    path: '/api/ideas/:id/files/content',
    summary: 'A file of the project, now or at a checkpoint (`at`).',
    params: { id: ideaId },
    query: FileContentQuerySchema,
    status: 200,
    response: FileContentResponseSchema,
    errors: [...IDEA, 'INVALID_PATH', 'PATH_NOT_FOUND', 'CHECKPOINT_NOT_FOUND', 'CHECKPOINT_FAILED'],
  },
  fileHistory: {
    method: 'GET',
    path: '/api/ideas/:id/files/history',
    summary: 'The checkpoints that changed a file, newest first.',
    params: { id: ideaId },
    query: FileHistoryQuerySchema,
    status: 200,
    response: FileHistoryResponseSchema,
    errors: [...IDEA, 'INVALID_PATH'],
  },
  preview: {
    method: 'GET',
    path: '/api/ideas/:id/preview',
    summary: 'The idea’s preview; while it runs, with a fresh one-time link to it.',
    params: { id: ideaId },
    status: 200,
    response: PreviewViewSchema,
    errors: IDEA,
  },
  startPreview: {
    method: 'POST',
    path: '/api/ideas/:id/preview/start',
    summary: 'Starts the idea’s preview command.',
    params: { id: ideaId },
    status: 200,
    response: PreviewViewSchema,
    errors: [...IDEA, 'PREVIEW_NOT_CONFIGURED'],
  },
  stopPreview: {
    method: 'POST',
    path: '/api/ideas/:id/preview/stop',
    summary: 'Stops the idea’s preview and everything it started.',
    params: { id: ideaId },
    status: 200,
    response: PreviewViewSchema,
    errors: IDEA,
  },
  previewLog: {
    method: 'GET',
    path: '/api/ideas/:id/preview/log',
    summary: 'What the preview’s command printed, the newest 256 KiB.',
    params: { id: ideaId },
    status: 200,
    response: PreviewLogResponseSchema,
    errors: IDEA,
  },
  listeningPorts: {
    method: 'GET',
    path: '/api/ideas/:id/preview/ports',
    summary: 'The TCP ports the idea’s running run and its preview listen on, on its host.',
    params: { id: ideaId },
    status: 200,
    response: ListeningPortsResponseSchema,
    errors: IDEA,
  },
  previewPortLink: {
    method: 'POST',
    path: '/api/ideas/:id/preview/ports/:port/link',
    summary: 'A one-time link to a preview of a port the idea’s processes listen on.',
    params: { id: ideaId, port },
    status: 200,
    response: PreviewLinkResponseSchema,
    errors: [...IDEA, 'PREVIEW_PORT_NOT_LISTENING', 'PORT_UNREACHABLE'],
  },
  openTerminals: {
    method: 'GET',
    path: '/api/ideas/:id/terminals',
    summary:
      'How many terminals the idea has open, in any tab or the CLI (their shells end when it is deleted).',
    params: { id: ideaId },
    status: 200,
    response: TerminalCountSchema,
    errors: IDEA,
  },
} as const satisfies Record<string, ApiRoute>;

/** What a login's body may weigh (`POST /login`, `POST /pair`): a token or a code, nothing more. */
export const LOGIN_BODY_LIMIT_BYTES = 4096;
const LOGIN_BODY_TOO_LARGE = { code: 'INVALID_ARGUMENT', status: 413, when: 'a body over 4 KiB' } as const;

/**
 * How a browser gets in: public, outside /api. Each starts a browser session (the HttpOnly cookie, and `{ key }` for
 * the page to send beside it) and refuses a foreign Origin; the token or the code goes in the body, never in a URL.
 */
export const LOGIN_API = {
  logIn: {
    method: 'POST',
    path: '/login',
    isPublic: true,
    summary:
      'Swaps the token for a browser session: the HttpOnly cookie, and the key the page sends beside it.',
    body: LoginBodySchema,
    status: 200,
    response: LoginResponseSchema,
    errors: ['INVALID_ARGUMENT', 'UNAUTHORIZED'],
    otherStatuses: [
      LOGIN_BODY_TOO_LARGE,
      { code: 'UNAUTHORIZED', status: 429, when: 'too many wrong tries from this address (Retry-After)' },
    ],
  },
  redeemPairing: {
    method: 'POST',
    path: '/pair',
    isPublic: true,
    summary:
      'Swaps a pairing code (from `POST /api/pairing`) for a browser session, as a login does; the code is used up.',
    body: RedeemPairingBodySchema,
    status: 200,
    response: LoginResponseSchema,
    errors: ['INVALID_ARGUMENT', 'PAIRING_CODE_REFUSED'],
    otherStatuses: [
      LOGIN_BODY_TOO_LARGE,
      {
        code: 'PAIRING_CODE_REFUSED',
        status: 429,
        when: 'too many wrong tries from this address (Retry-After)',
      },
    ],
  },
} as const satisfies Record<string, ApiRoute>;

/** Every route, for clients (the web app, the `catalyst` command) and the OpenAPI document. */
export const API = { ...GUARDED_API, ...LOGIN_API } as const;

export type Api = typeof API;
export type ApiRouteName = keyof Api;

type ParamsSpec<R> = R extends { params: infer P } ? P : Record<string, never>;
/** What a client puts in the path: text (or a port's number), encoded by apiPath. */
export type ApiParams<R> = { readonly [K in keyof ParamsSpec<R>]: string | number };
/** The path's values as a handler gets them, parsed. */
export type ApiParsedParams<R> = {
  readonly [K in keyof ParamsSpec<R>]: ParamsSpec<R>[K] extends PathParam<infer T> ? T : never;
};
/** A client's query: each value as text or a number, an undefined one left out. */
export type ApiQuery<R> = R extends { query: z.ZodType }
  ? { readonly [K in keyof z.input<R['query']>]: z.input<R['query']>[K] | number }
  : undefined;
export type ApiParsedQuery<R> = R extends { query: z.ZodType } ? z.output<R['query']> : undefined;
export type ApiBody<R> = R extends { body: z.ZodType } ? z.input<R['body']> : undefined;
export type ApiParsedBody<R> = R extends { body: z.ZodType } ? z.output<R['body']> : undefined;
/** What the route answers, as a client reads it (undefined for 204). */
export type ApiResponse<R> = R extends { response: z.ZodType } ? z.output<R['response']> : undefined;
/** What a handler returns for it: the response's input side (nothing for 204). */
export type ApiAnswer<R> = R extends { response: z.ZodType } ? z.input<R['response']> : undefined;

/** A request as a client sends it: the route's path values, query and body, each only when it has them. */
export type ApiRequest<R> = (R extends { params: object }
  ? { params: ApiParams<R> }
  : { params?: undefined }) &
  (R extends { query: z.ZodType }
    ? object extends ApiQuery<R>
      ? { query?: ApiQuery<R> }
      : { query: ApiQuery<R> }
    : { query?: undefined }) &
  (R extends { body: z.ZodType } ? { body: ApiBody<R> } : { body?: undefined });

/** The route's path with its values encoded, and the query's defined values appended. */
export function apiPath(
  route: ApiRoute,
  request: { params?: object | undefined; query?: object | undefined } = {},
): string {
  const values = (request.params ?? {}) as Record<string, string | number>;
  const path = route.path.replace(/:([A-Za-z]+)/g, (_segment, name: string) => {
    const value = values[name];
    if (value === undefined) throw new Error(`${route.method} ${route.path}: no value for :${name}`);
    // A URL resolves `.` and `..` segments even when encoded: one would name another route.
    if (value === '.' || value === '..')
      throw new Error(`${route.method} ${route.path}: :${name} is ${value}`);
    return encodeURIComponent(String(value));
  });
  const search = new URLSearchParams();
  const query = (request.query ?? {}) as Record<string, string | number | undefined>;
  for (const [name, value] of Object.entries(query)) {
    if (value !== undefined) search.set(name, String(value));
  }
  return search.size === 0 ? path : `${path}?${search.toString()}`;
}

/** The HTTP status each error code is answered with; 500 for every code without a more precise one. */
const STATUS_BY_CODE: Partial<Record<ErrorCode, number>> = {
  INVALID_ARGUMENT: 400,
  UNSAFE_ARGUMENT: 400,
  INVALID_FRAME: 400,
  COMMAND_TOO_LONG: 400,
  UNAUTHORIZED: 401,
  PAIRING_CODE_REFUSED: 401,
  FORBIDDEN_ORIGIN: 403,
  IDEA_NOT_FOUND: 404,
  HOST_NOT_FOUND: 404,
  QUESTION_NOT_FOUND: 404,
  PERMISSION_REQUEST_NOT_FOUND: 404,
  RUN_NOT_FOUND: 404,
  AUTOPILOT_NOT_FOUND: 404,
  QUEUE_STEP_NOT_FOUND: 404,
  NO_QUEUE: 409,
  CHECKPOINT_NOT_FOUND: 404,
  REVIEW_COMMENT_NOT_FOUND: 404,
  REVIEW_COMMENT_SENT: 409,
  INVALID_PATH: 400,
  PATH_NOT_FOUND: 404,
  PREVIEW_NOT_CONFIGURED: 409,
  PREVIEW_PORT_NOT_LISTENING: 404,
  PORT_UNREACHABLE: 502,
  RUN_IN_PROGRESS: 409,
  NO_RUN: 409,
  SESSION_BUSY: 409,
  BUDGET_EXCEEDED: 409,
  NO_SESSION: 409,
  TOO_MANY_ASIDES: 429,
  FRAME_TOO_LARGE: 413,
  HOST_UNAVAILABLE: 503,
  SSH_CONNECT_FAILED: 503,
  SSH_AUTH_FAILED: 503,
  SSH_HOST_KEY_MISMATCH: 503,
  SSH_HOST_KEY_MISSING: 503,
  SSH_HOST_KEY_UNKNOWN: 503,
  SSH_HOST_KEY_REVOKED: 503,
  SSH_CONFIG_INVALID: 503,
  SSH_CONFIG_UNSUPPORTED: 503,
  HOST_EXISTS: 409,
  HOST_READ_ONLY: 409,
  HOST_HAS_IDEAS: 409,
  FINGERPRINT_MISMATCH: 409,
  CONNECTION_LOST: 503,
  // The host took a file call but did not answer it in time (a FIFO's open(), a hung disk): a gateway's timeout.
  HOST_TIMED_OUT: 504,
};

export function statusForCode(code: ErrorCode): number {
  return STATUS_BY_CODE[code] ?? 500;
}
