import { useCallback, useEffect, useState } from 'react';

/**
 * After a card is submitted its inputs stay disabled until the server's closing event arrives. The frame can be
 * lost (the socket was reconnecting), so after `retryAfterMs` without that event the card comes back.
 */
export function usePendingSubmit(retryAfterMs = 15_000): { isSubmitted: boolean; markSubmitted: () => void } {
  const [isSubmitted, setIsSubmitted] = useState(false);
  useEffect(() => {
    if (!isSubmitted) return undefined;
    const timer = setTimeout(() => {
      setIsSubmitted(false);
    }, retryAfterMs);
    return () => {
      clearTimeout(timer);
    };
  }, [isSubmitted, retryAfterMs]);
  const markSubmitted = useCallback(() => {
    setIsSubmitted(true);
  }, []);
  return { isSubmitted, markSubmitted };
}
