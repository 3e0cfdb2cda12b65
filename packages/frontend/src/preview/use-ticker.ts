import { useEffect, useState } from 'react';

/** A count that goes up every `intervalMs` while the caller is mounted: a key to fetch something again by. */
export function useTicker(intervalMs: number): number {
  const [tick, setTick] = useState(0);
  useEffect(() => {
    const timer = setInterval(() => {
      setTick((count) => count + 1);
    }, intervalMs);
    return () => {
      clearInterval(timer);
    };
  }, [intervalMs]);
  return tick;
}
