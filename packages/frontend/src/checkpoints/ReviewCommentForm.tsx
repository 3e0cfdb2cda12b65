import { useState, type SubmitEvent } from 'react';

interface ReviewCommentFormProps {
  /** What the comment is about: "lines 1–2 of src/b.ts". */
  where: string;
  initialText?: string;
  submitLabel: string;
  /** Resolves with the sentence of what went wrong, or undefined once it is saved. */
  onSubmit: (text: string) => Promise<string | undefined>;
  onCancel: () => void;
}

/** A comment's text, written or changed: saved on submit, the server's refusal shown as its sentence. */
export function ReviewCommentForm({
  where,
  initialText = '',
  submitLabel,
  onSubmit,
  onCancel,
}: ReviewCommentFormProps) {
  const [text, setText] = useState(initialText);
  const [problem, setProblem] = useState<string>();
  const [isSaving, setIsSaving] = useState(false);
  const submit = (event: SubmitEvent<HTMLFormElement>) => {
    event.preventDefault();
    setIsSaving(true);
    void onSubmit(text).then((failed) => {
      setIsSaving(false);
      setProblem(failed);
    });
  };
  return (
    <form className="review-form" onSubmit={submit}>
      <textarea
        aria-label={`Comment on ${where}`}
        value={text}
        rows={3}
        // Opened by a click on a line number or "Edit": the person writes next.
        autoFocus
        onChange={(event) => {
          setText(event.target.value);
        }}
      />
      {problem === undefined ? null : (
        <p className="form-error" role="alert">
          {problem}
        </p>
      )}
      <div className="review-form__actions">
        <button type="submit" className="primary" disabled={isSaving || text.trim() === ''}>
          {submitLabel}
        </button>
        <button type="button" onClick={onCancel}>
          Cancel
        </button>
      </div>
    </form>
  );
}
