import type { ReactNode } from 'react';
import { navigate } from './router.ts';

/** A link to a page of the app: a plain click goes there without a reload; a modified click opens a tab as usual. */
export function AppLink({
  href,
  className,
  children,
}: {
  href: string;
  className?: string;
  children: ReactNode;
}) {
  return (
    <a
      href={href}
      {...(className === undefined ? {} : { className })}
      onClick={(event) => {
        if (event.metaKey || event.ctrlKey || event.shiftKey || event.button !== 0) return;
        event.preventDefault();
        navigate(href);
      }}
    >
      {children}
    </a>
  );
}
