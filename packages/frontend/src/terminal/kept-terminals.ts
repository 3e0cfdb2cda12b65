import { z } from 'zod';

/** The ids of an idea's open terminals, for this tab only (sessionStorage): a reload attaches to them again. */

const IdsSchema = z.array(z.string().regex(/^term-[a-f0-9]{32}$/)).max(20);

function storageName(ideaId: string): string {
  return `catalyst.terminals.${ideaId}`;
}

export function keptTerminals(ideaId: string): string[] {
  const raw = sessionStorage.getItem(storageName(ideaId));
  if (raw === null) return [];
  try {
    const parsed = IdsSchema.safeParse(JSON.parse(raw));
    return parsed.success ? parsed.data : [];
  } catch {
    return [];
  }
}

export function keepTerminal(ideaId: string, terminalId: string): void {
  const ids = keptTerminals(ideaId);
  if (!ids.includes(terminalId))
    sessionStorage.setItem(storageName(ideaId), JSON.stringify([...ids, terminalId]));
}

export function forgetTerminal(ideaId: string, terminalId: string): void {
  const ids = keptTerminals(ideaId).filter((id) => id !== terminalId);
  sessionStorage.setItem(storageName(ideaId), JSON.stringify(ids));
}
