import { Component, type ErrorInfo, type ReactNode } from 'react';

interface ErrorBoundaryProps {
  /** What shows instead of the children once one of them threw while rendering. */
  fallback: ReactNode;
  /** A new value tries the children again (an item that changed may render now). */
  resetKey?: unknown;
  children: ReactNode;
}

interface ErrorBoundaryState {
  hasFailed: boolean;
  failedWith: unknown;
}

/**
 * Keeps a rendering error where it happened: the fallback replaces the failing part, the rest of the page stays.
 * The error goes to the console for a developer; the page shows words, never a stack trace.
 */
export class ErrorBoundary extends Component<ErrorBoundaryProps, ErrorBoundaryState> {
  override state: ErrorBoundaryState = { hasFailed: false, failedWith: undefined };

  static getDerivedStateFromError(): Partial<ErrorBoundaryState> {
    return { hasFailed: true };
  }

  static getDerivedStateFromProps(
    props: ErrorBoundaryProps,
    state: ErrorBoundaryState,
  ): Partial<ErrorBoundaryState> | null {
    if (!state.hasFailed) return { failedWith: props.resetKey };
    return props.resetKey === state.failedWith ? null : { hasFailed: false, failedWith: props.resetKey };
  }

  override componentDidCatch(error: unknown, info: ErrorInfo): void {
    console.error('Catalyst could not show part of the page', error, info.componentStack);
  }

  override render(): ReactNode {
    return this.state.hasFailed ? this.props.fallback : this.props.children;
  }
}
