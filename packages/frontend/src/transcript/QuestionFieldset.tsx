import { useId } from 'react';
import type { AskUserQuestionItem } from '@catalyst/protocol';
import { chooseOption, chooseOther, type QuestionChoice } from './question-answers.ts';

interface QuestionFieldsetProps {
  item: AskUserQuestionItem;
  choice: QuestionChoice;
  isDisabled: boolean;
  onChange: (choice: QuestionChoice) => void;
}

/**
 * One question: radios (checkboxes when multiSelect) named by their label alone (the description is linked with
 * aria-describedby, so it does not change the name), then "Other" with its text input.
 */
export function QuestionFieldset({ item, choice, isDisabled, onChange }: QuestionFieldsetProps) {
  const id = useId();
  const type = item.multiSelect ? 'checkbox' : 'radio';
  return (
    <fieldset className="t-question__item" disabled={isDisabled}>
      <legend className="t-question__text">{item.question}</legend>
      <ul className="t-options">
        {item.options.map((option, index) => (
          <li key={option.label} className="t-option">
            <label className="t-option__label">
              <input
                type={type}
                disabled={isDisabled}
                name={id}
                value={option.label}
                checked={choice.labels.includes(option.label)}
                aria-describedby={option.description === '' ? undefined : `${id}-${index}`}
                onChange={(event) => {
                  onChange(chooseOption(item, choice, option.label, event.target.checked));
                }}
              />
              {option.label}
            </label>
            {option.description === '' ? null : (
              <span className="t-option__description" id={`${id}-${index}`}>
                {option.description}
              </span>
            )}
          </li>
        ))}
        <li className="t-option t-option--other">
          <label className="t-option__label">
            <input
              type={type}
              disabled={isDisabled}
              name={id}
              value=""
              checked={choice.isOther}
              onChange={(event) => {
                onChange(chooseOther(item, choice, event.target.checked));
              }}
            />
            Other
          </label>
          <input
            type="text"
            disabled={isDisabled}
            className="t-option__other"
            aria-label="Other answer"
            value={choice.otherText}
            onChange={(event) => {
              const text = event.target.value;
              onChange({ ...chooseOther(item, choice, true), otherText: text });
            }}
          />
        </li>
      </ul>
    </fieldset>
  );
}
