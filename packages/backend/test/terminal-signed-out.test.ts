import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { logInBrowser, sessionIdOf, socketOptionsOf } from './browser-login.ts';
import { closedWithin, openDeafClient } from './deaf-ws-client.ts';
import { useServiceFixture } from './service-harness.ts';
import { connectTerminal, runInTerminal, terminalUrl } from './terminal-client.ts';

// Security review (issue 39), item 1, over SSH to the test kit's sshd: a lost phone signed out can no longer type
// into its shell, even when it never answers the server's close.

const fixture = useServiceFixture();

/** The sign-out's grace (ws-sign-out.ts, one second) and a margin for a busy machine. */
const CUT_WITHIN_MS = 3_000;

const ReadySchema = z.object({ type: z.literal('ready'), terminalId: z.string() });

describe('a signed-out browser’s terminal that does not answer the close', () => {
  it('writes none of its input to the shell and is cut within the grace; the shell stays for its owner', async () => {
    const { service } = fixture;
    const idea = await service.createIdea('Terminal signed out');
    const phone = await logInBrowser(service.catalyst.url, service.catalyst.token);
    const client = await openDeafClient(terminalUrl(service), socketOptionsOf(phone));
    client.socket.send(JSON.stringify({ type: 'open', ideaId: idea.id, cols: 80, rows: 24 }));
    const ready = ReadySchema.parse(await client.firstFrame);
    const sessionId = await sessionIdOf(phone);
    client.goDeaf();
    const signedOutAt = performance.now();
    const ended = await service.api(`/api/sessions/${sessionId}`, { method: 'DELETE' });
    expect(ended.status).toBe(204);
    client.socket.send(Buffer.from('touch signed-out-marker\r'), { binary: true });

    // The shell reads its input in order: what the phone typed would have run before this.
    const owner = await connectTerminal(service);
    owner.send({ type: 'attach', ideaId: idea.id, terminalId: ready.terminalId, cols: 80, rows: 24 });
    await owner.waitForFrame('ready');
    expect(await runInTerminal(owner, '[ -e signed-out-marker ]; echo "exists=$?"', 'done-check')).toContain(
      'exists=1',
    );
    expect(existsSync(join(service.projectDir(idea.id), 'signed-out-marker'))).toBe(false);

    const cut = await closedWithin(client, CUT_WITHIN_MS + 1_000);
    expect(cut, 'the signed-out socket is still open').toBeDefined();
    expect((cut?.at ?? Infinity) - signedOutAt).toBeLessThan(CUT_WITHIN_MS);
    owner.send({ type: 'close' });
    await owner.waitForFrame('ended');
  });
});
