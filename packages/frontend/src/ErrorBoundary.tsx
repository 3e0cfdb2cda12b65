import { Component, type ErrorInfo, type ReactNode } from 'react';

interface ErrorBoundaryProps<T> {
  /** What shows instead of the children once one of them threw while rendering. */
  fallback: ReactNode;
  /** A new value tries the children again (an item that changed may render now). */
  resetKey?: T;
  /** When two reset keys are the same; `Object.is` by default. */
  isSameKey?: (a: T, b: T) => boolean;
  children: ReactNode;
}

interface ErrorBoundaryState<T> {
  hasFailed: boolean;
  failedWith: T | undefined;
}

/**
 * Keeps a rendering error where it happened: the fallback replaces the failing part, the rest of the page stays.
 * The error goes to the console for a developer; the page shows words, never a stack trace.
 */
export class ErrorBoundary<T = unknown> extends Component<ErrorBoundaryProps<T>, ErrorBoundaryState<T>> {
  override state: ErrorBoundaryState<T> = { hasFailed: false, failedWith: undefined };

  static getDerivedStateFromError(): { hasFailed: boolean } {
    return { hasFailed: true };
  }

  static getDerivedStateFromProps<T>(
    props: ErrorBoundaryProps<T>,
    state: ErrorBoundaryState<T>,
  ): Partial<ErrorBoundaryState<T>> | null {
    if (!state.hasFailed) return { failedWith: props.resetKey };
    const { resetKey } = props;
    const { failedWith } = state;
    const isSame =
      resetKey === undefined || failedWith === undefined
        ? resetKey === failedWith
        : (props.isSameKey ?? Object.is)(resetKey, failedWith);
    return isSame ? null : { hasFailed: false, failedWith: resetKey };
  }

  override componentDidCatch(error: unknown, info: ErrorInfo): void {
    console.error('Catalyst could not show part of the page', error, info.componentStack);
  }

  override render(): ReactNode {
    return this.state.hasFailed ? this.props.fallback : this.props.children;
  }
}
