/**
 * Whether `work` settles (either way) within `ms`. The timer is cleared once it has, and never holds the process
 * open: it bounds a wait on something that may never end (a lost stop, a host that does not answer).
 */
export async function settlesWithin(work: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<false>((resolve) => {
    timer = setTimeout(() => {
      resolve(false);
    }, ms).unref();
  });
  try {
    return await Promise.race([
      work.then(
        () => true,
        () => true,
      ),
      expired,
    ]);
  } finally {
    clearTimeout(timer);
  }
}
