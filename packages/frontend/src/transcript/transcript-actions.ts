/**
 * What the transcript's cards ask of the page; each becomes a client frame (ws-frames.ts). Each returns whether
 * the frame went out: a card waits for the server's answer only then (offline, it stays usable).
 */
export interface TranscriptActions {
  answer(questionId: string, answers: Record<string, string | string[]>): boolean;
  dismiss(questionId: string): boolean;
  permission(requestId: string, decision: 'allow' | 'deny', remember: boolean): boolean;
}
