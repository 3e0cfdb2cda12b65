import { useState, type SyntheticEvent } from 'react';
import type { RelayEvent } from '@catalyst/protocol';
import { promptAnchor } from './prompt-anchor.ts';
import { QuestionFieldset } from './QuestionFieldset.tsx';
import { buildAnswers, emptyChoice, type QuestionChoice } from './question-answers.ts';
import type { TranscriptActions } from './transcript-actions.ts';
import { useParkedFocus } from './use-parked-focus.ts';
import { usePendingSubmit } from './use-pending-submit.ts';

type Question = Extract<RelayEvent, { type: 'claude:question' }>;
type QuestionAnswered = Extract<RelayEvent, { type: 'claude:question_answered' }>;
type QuestionClosed = Extract<RelayEvent, { type: 'claude:question_closed' }>;

interface QuestionCardProps {
  question: Question;
  answered: QuestionAnswered | undefined;
  closed: QuestionClosed | undefined;
  isRunEnded: boolean;
  actions: TranscriptActions;
}

const closedWords: Record<QuestionClosed['reason'], string> = {
  answered: 'Answered',
  dismissed: 'Dismissed',
  timed_out: 'Timed out: Claude went on without an answer',
  cancelled: 'Cancelled',
};

/**
 * Claude's AskUserQuestion. Open: one fieldset per question, submit and dismiss (disabled while sending). Closed:
 * a record of what was asked, what was answered, and by whom (or why it closed).
 */
export function QuestionCard({ question, answered, closed, isRunEnded, actions }: QuestionCardProps) {
  const isClosed = answered !== undefined || closed !== undefined || isRunEnded;
  const header = question.questions[0]?.header ?? 'Claude asks';
  const focus = useParkedFocus<HTMLElement>(isClosed);
  return (
    <section
      id={promptAnchor(question.seq)}
      className={isClosed ? 't-card t-question t-card--closed' : 't-card t-question'}
      aria-label={`Question: ${header}`}
      {...focus}
    >
      {isClosed ? (
        <>
          {answered === undefined ? (
            <ul className="t-asked">
              {question.questions.map((item, index) => (
                <li key={index}>{item.question}</li>
              ))}
            </ul>
          ) : (
            <AnswerList answers={answered.answers} />
          )}
          <p className="t-card__outcome">{describeOutcome(answered, closed)}</p>
        </>
      ) : (
        <QuestionForm question={question} actions={actions} />
      )}
    </section>
  );
}

function QuestionForm({ question, actions }: { question: Question; actions: TranscriptActions }) {
  const [choices, setChoices] = useState<readonly QuestionChoice[]>(() =>
    question.questions.map(() => emptyChoice),
  );
  const { isSubmitted, markSubmitted } = usePendingSubmit();
  const answers = buildAnswers(question.questions, choices);

  const submit = (event: SyntheticEvent<HTMLFormElement>) => {
    event.preventDefault();
    if (isSubmitted || answers === undefined) return;
    if (actions.answer(question.questionId, answers)) markSubmitted();
  };
  const dismiss = () => {
    if (actions.dismiss(question.questionId)) markSubmitted();
  };
  const setChoice = (index: number, choice: QuestionChoice) => {
    setChoices((current) => current.map((old, at) => (at === index ? choice : old)));
  };

  return (
    <form onSubmit={submit}>
      {question.questions.map((item, index) => (
        <QuestionFieldset
          key={index}
          item={item}
          choice={choices[index] ?? emptyChoice}
          isDisabled={isSubmitted}
          onChange={(choice) => {
            setChoice(index, choice);
          }}
        />
      ))}
      <QuestionButtons
        canSubmit={!isSubmitted && answers !== undefined}
        isSending={isSubmitted}
        onDismiss={dismiss}
      />
    </form>
  );
}

interface QuestionButtonsProps {
  canSubmit: boolean;
  isSending: boolean;
  onDismiss: () => void;
}

function QuestionButtons({ canSubmit, isSending, onDismiss }: QuestionButtonsProps) {
  return (
    <div className="t-card__actions">
      <button type="submit" className="t-button t-button--primary" disabled={!canSubmit}>
        Submit answer
      </button>
      <button type="button" className="t-button" disabled={isSending} onClick={onDismiss}>
        Dismiss
      </button>
      {isSending ? <span className="t-card__status">Sending…</span> : null}
    </div>
  );
}

function AnswerList({ answers }: { answers: Record<string, string> }) {
  return (
    <dl className="t-answers">
      {Object.entries(answers).map(([question, answer]) => (
        <div key={question} className="t-answers__row">
          <dt>{question}</dt>
          <dd>{answer}</dd>
        </div>
      ))}
    </dl>
  );
}

function describeOutcome(answered: QuestionAnswered | undefined, closed: QuestionClosed | undefined): string {
  if (answered !== undefined) {
    return answered.source === 'human' ? 'Answered by you' : `Answered automatically (${answered.by})`;
  }
  return closed === undefined ? 'Closed: the run ended' : closedWords[closed.reason];
}
