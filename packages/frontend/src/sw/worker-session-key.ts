/**
 * The page's session key (app/session-key.ts), kept where the service worker can read it: a worker has no
 * localStorage, and an answer from a notification's action needs both halves of the login, like any API call
 * (docs/security.md, "The browser session"). IndexedDB belongs to the same origin as localStorage, so the key is
 * no more exposed here than there. The page writes it while this device has push on, and deletes it when push is
 * turned off or the session ends.
 */

/** Where the key is kept: the database, its one store, and the record's key (the browser test writes it too). */
export const WORKER_KEY_PLACE = { database: 'catalyst-worker', store: 'session', key: 'key' } as const;
const { database: DATABASE, store: STORE, key: KEY } = WORKER_KEY_PLACE;

function openDatabase(): Promise<IDBDatabase> {
  return new Promise((resolve, reject) => {
    const request = indexedDB.open(DATABASE, 1);
    request.onupgradeneeded = () => {
      request.result.createObjectStore(STORE);
    };
    request.onsuccess = () => {
      resolve(request.result);
    };
    request.onerror = () => {
      reject(request.error ?? new Error(`IndexedDB ${DATABASE} did not open`));
    };
  });
}

async function withStore(
  mode: IDBTransactionMode,
  act: (store: IDBObjectStore) => IDBRequest,
): Promise<unknown> {
  const database = await openDatabase();
  try {
    return await new Promise<unknown>((resolve, reject) => {
      const transaction = database.transaction(STORE, mode);
      const request = act(transaction.objectStore(STORE));
      transaction.oncomplete = () => {
        resolve(request.result);
      };
      transaction.onerror = () => {
        reject(transaction.error ?? new Error(`IndexedDB ${DATABASE} refused the ${mode}`));
      };
    });
  } finally {
    database.close();
  }
}

export async function readWorkerSessionKey(): Promise<string | undefined> {
  const value = await withStore('readonly', (store) => store.get(KEY));
  return typeof value === 'string' ? value : undefined;
}

/** Writes the key, or deletes it (`undefined`). */
export async function writeWorkerSessionKey(key: string | undefined): Promise<void> {
  await withStore('readwrite', (store) => (key === undefined ? store.delete(KEY) : store.put(key, KEY)));
}
