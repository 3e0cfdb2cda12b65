import type { HostCheckStep, HostCheckView } from '@catalyst/protocol';
import { HostKeyConfirm } from './HostKeyConfirm.tsx';
import { STATUS_LABELS, STEP_LABELS } from './host-check-text.ts';
import type { HostCheck } from './use-host-check.ts';

/** A host's check: whether it is ready, a new host key to confirm, each step in order, what of ssh_config is unused. */
export function HostCheckPanel({ hostName, hostCheck }: { hostName: string; hostCheck: HostCheck }) {
  const { state, trustState, trust } = hostCheck;
  return (
    <section className="host-check" aria-label={`Check of ${hostName}`}>
      <p className="host-check-summary" role="status">
        {state.kind === 'checking'
          ? `Checking ${hostName}…`
          : state.kind === 'checked'
            ? summaryOf(state.check)
            : ''}
      </p>
      {state.kind === 'failed' ? (
        <p className="form-error" role="alert">
          {state.message}
        </p>
      ) : null}
      {state.kind === 'checked' ? (
        <>
          {state.check.unknownHostKey === undefined ? null : (
            <HostKeyConfirm
              // Another key (the VM's, once its jump host's is trusted) is a new confirmation, brought into view.
              key={`${state.check.unknownHostKey.hop} ${state.check.unknownHostKey.knownHostsName}`}
              hostName={hostName}
              presented={state.check.unknownHostKey}
              trustState={trustState}
              onTrust={(fingerprint) => void trust(fingerprint)}
            />
          )}
          <CheckSteps steps={state.check.steps} isKeyShown={state.check.unknownHostKey !== undefined} />
          <IgnoredSettings ignored={state.check.ignored} />
        </>
      ) : null}
    </section>
  );
}

function summaryOf(check: HostCheckView): string {
  if (check.isReady) return `${check.name} is ready: new ideas can run there.`;
  const failed = check.steps.find((step) => step.status === 'failed');
  return failed === undefined
    ? `${check.name} is not ready yet.`
    : `${check.name} is not ready: the step “${STEP_LABELS[failed.id]}” failed.`;
}

/** `isKeyShown`: the key to confirm is shown above with how to compare it, which is the host-key step's fix. */
export function CheckSteps({ steps, isKeyShown }: { steps: readonly HostCheckStep[]; isKeyShown: boolean }) {
  return (
    <ol className="check-steps" aria-label="Steps">
      {steps.map((step) => {
        const fix = isKeyShown && step.id === 'host-key' ? 'compare the key above and confirm it.' : step.fix;
        return (
          <li key={step.id} className={`check-step check-step-${step.status}`}>
            <span className="check-step-name">{STEP_LABELS[step.id]}</span>
            <span className={`check-status check-status-${step.status}`}>{STATUS_LABELS[step.status]}</span>
            {step.detail === '' ? null : <p className="check-step-detail">{step.detail}</p>}
            {fix === undefined ? null : <p className="check-step-fix">Fix: {fix}</p>}
          </li>
        );
      })}
    </ol>
  );
}

function IgnoredSettings({ ignored }: { ignored: readonly string[] }) {
  if (ignored.length === 0) return null;
  return (
    <section className="check-ignored" aria-label="Not used from your ssh config">
      <h3>Not used from your ssh config</h3>
      <ul>
        {ignored.map((sentence) => (
          <li key={sentence}>{sentence}</li>
        ))}
      </ul>
    </section>
  );
}
