import { createContext, useContext, useSyncExternalStore } from 'react';
import type { PushDevice, PushState } from './push-device.ts';

/** The logged-in app's one PushDevice (App.tsx); none outside it, where only the tab's notifications exist. */
export const PushContext = createContext<PushDevice | undefined>(undefined);

const NO_PUSH: PushState = { kind: 'unsupported' };
const noSubscription = () => () => undefined;

export function usePushDevice(): { device: PushDevice | undefined; state: PushState } {
  const device = useContext(PushContext);
  const state = useSyncExternalStore(
    device?.subscribe ?? noSubscription,
    device?.getState ?? (() => NO_PUSH),
  );
  return { device, state };
}
