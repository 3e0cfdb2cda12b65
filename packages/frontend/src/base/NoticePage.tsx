import type { ReactNode } from 'react';

interface NoticePageProps {
  title: string;
  /** What happened and what to do, as paragraphs. */
  children: ReactNode;
  action: { label: string; onClick: () => void };
  /** `alert` when the whole notice is news to announce at once. */
  role?: 'alert';
}

/** A page that is only a notice: a heading, a few words, and one way on. */
export function NoticePage({ title, children, action, role }: NoticePageProps) {
  return (
    <main className="centered">
      <div className="panel" role={role}>
        <h1>{title}</h1>
        {children}
        <button type="button" onClick={action.onClick}>
          {action.label}
        </button>
      </div>
    </main>
  );
}
