/** What the transcript's cards ask of the page; each becomes a client frame (ws-frames.ts). */
export interface TranscriptActions {
  answer(questionId: string, answers: Record<string, string | string[]>): void;
  dismiss(questionId: string): void;
  permission(requestId: string, decision: 'allow' | 'deny', remember: boolean): void;
}
