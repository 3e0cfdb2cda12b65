import { Dialog } from '../base/Dialog.tsx';

/** Every keyboard shortcut of the idea's page, in one place (issue 31); `?` opens it. */
export const SHORTCUTS: readonly { keys: string; what: string }[] = [
  { keys: '?', what: 'This list of shortcuts' },
  { keys: '/', what: 'Go to the message box' },
  { keys: 'Enter', what: 'Send the message (in the message box)' },
  { keys: 'Shift+Enter', what: 'A new line in the message box' },
  { keys: 't', what: 'The conversation (on a narrow screen)' },
  { keys: 'c', what: 'The Changes tab' },
  { keys: 'f', what: 'The Files tab' },
  { keys: 'p', what: 'The Preview tab' },
  { keys: '`', what: 'The Terminal tab (a shell on the idea’s host, in its project folder)' },
  { keys: 's', what: 'The Settings tab' },
  { keys: '← →, Home, End', what: 'Move between the tabs, on a tab' },
  { keys: '← →', what: 'Widen or narrow the side panel, on its splitter' },
  { keys: 'Tab', what: 'Cancel, the queue and every other control, in page order' },
  { keys: 'Escape', what: 'Close a dialog or the idea’s actions' },
];

export function ShortcutsDialog({ onClose }: { onClose: () => void }) {
  return (
    <Dialog title="Keyboard shortcuts" onClose={onClose}>
      <p className="hint">The single keys work anywhere on the page except in a text field.</p>
      <table className="shortcuts">
        <thead>
          <tr>
            <th scope="col">Keys</th>
            <th scope="col">What they do</th>
          </tr>
        </thead>
        <tbody>
          {SHORTCUTS.map(({ keys, what }) => (
            <tr key={keys + what}>
              <td>
                <kbd>{keys}</kbd>
              </td>
              <td>{what}</td>
            </tr>
          ))}
        </tbody>
      </table>
      <div className="actions">
        <button type="button" data-autofocus onClick={onClose}>
          Close
        </button>
      </div>
    </Dialog>
  );
}
