/**
 * How soon a turn's first text reaches the browser (issue 11): p50, over 10 turns each, of the time from a `chat`
 * frame sent on a WebSocket to the first `claude:text_delta` back, with the real claude CLI on the test kit's sshd
 * and the scripted model answering at once. The cases:
 *   cold        CATALYST_WARM_PER_HOST=0: every turn starts its own claude, with --resume (as before issue 11);
 *   warm        the idea's claude waits in its session after its turn; turns 2–11 of one idea are written into it;
 *   prewarmed   a new idea opened (subscribe), the message sent 3 s later (a person typing): its pre-warmed claude;
 *   modeSwitch  an idea's first Build after a chat turn, sent 3 s after the page switched its composer to Build
 *               (the `mode` frame, issue 30): the build claude pre-warmed on the switch;
 *   bareSsh     a bare `ssh` exec of the same CLI (`claude -p`, stream-json) in the same run, to its first text
 *               delta line: what a plain remote call costs;
 *   jumped      pre-warmed first turns on a host added as an ssh_config alias behind a ProxyJump bastion (a second
 *               sshd), against the same VM added as a direct alias, alternately in one Catalyst (issue 28).
 * Human-readable lines first; the last line is one JSON object:
 * {"coldFirstTextMs","warmFirstTextMs","prewarmedFirstTextMs","modeSwitchFirstTextMs","bareSshFirstTextMs","warmVsBareSsh",
 *  "aliasFirstTextMs","jumpedFirstTextMs"} (warmVsBareSsh = bareSsh / warm). Goals: warm and pre-warmed ≤ 100 ms, warmVsBareSsh ≥ 8. Asserts nothing.
 * Needs root, as the test kit does. Run it with scripts/bench-turn; it takes about a minute.
 */
import { spawn } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { percentile } from '../relay/lines.ts';
import { BenchCatalyst, say, withSite, type Site } from '../shared/bench-catalyst.ts';
import { createTempDir, startSshd, streamedText } from '../../packages/testkit/src/index.ts';

const TURNS = 10;
const TYPING_MS = 3_000;

/** The nearest-rank p50 (bench/relay/lines.ts), to a tenth of a millisecond. */
function p50(values: readonly number[]): number {
  return Math.round(percentile(values, 50) * 10) / 10;
}

/** One turn (a chat unless said): ms from the frame sent to its first text delta; resolves once it has ended. */
async function turn(
  bench: BenchCatalyst,
  site: Site,
  ideaId: string,
  words: string,
  mode: 'chat' | 'build' = 'chat',
): Promise<number> {
  site.model.enqueue(streamedText(words, ' More words.'));
  const firstText = bench.next((frame) => frame.type === 'claude:text_delta' && frame.ideaId === ideaId);
  const ended = bench.next((frame) => frame.type === 'run:ended' && frame.ideaId === ideaId);
  const sentAt = performance.now();
  bench.send({ type: mode, ideaId, message: words });
  await firstText;
  const ms = performance.now() - sentAt;
  await ended;
  return ms;
}

/** Turns 2..TURNS+1 of one idea: the first makes its Claude session (and, warm, its waiting process). */
async function laterTurns(bench: BenchCatalyst, site: Site, title: string): Promise<number[]> {
  const ideaId = await bench.createIdea(title);
  await bench.subscribe(ideaId);
  await turn(bench, site, ideaId, 'First turn.');
  const times: number[] = [];
  for (let index = 0; index < TURNS; index += 1)
    times.push(await turn(bench, site, ideaId, `Turn ${String(index)}.`));
  return times;
}

async function prewarmedTurns(bench: BenchCatalyst, site: Site): Promise<number[]> {
  const times: number[] = [];
  for (let index = 0; index < TURNS; index += 1) {
    const ideaId = await bench.createIdea(`Opened ${String(index)}`);
    await bench.subscribe(ideaId);
    await new Promise((resolve) => setTimeout(resolve, TYPING_MS));
    times.push(await turn(bench, site, ideaId, 'Hello.'));
  }
  return times;
}

/**
 * An idea's first Build after a chat: the page switched its composer to Build (the `mode` frame) right after the
 * chat's turn, and the Build is sent TYPING_MS later (issue 30).
 */
async function modeSwitchTurns(bench: BenchCatalyst, site: Site): Promise<number[]> {
  const times: number[] = [];
  for (let index = 0; index < TURNS; index += 1) {
    const ideaId = await bench.createIdea(`Switched ${String(index)}`);
    await bench.subscribe(ideaId);
    await turn(bench, site, ideaId, 'Talk first.');
    bench.send({ type: 'mode', ideaId, mode: 'build' });
    await new Promise((resolve) => setTimeout(resolve, TYPING_MS));
    times.push(await turn(bench, site, ideaId, 'Build it.', 'build'));
  }
  return times;
}

/**
 * Pre-warmed first turns on the VM added twice from an ssh_config: `direct`, and `jumped` through a bastion (a
 * second sshd). Alternate ideas, so both see the same machine; returns the first-text times of each.
 */
async function jumpedTurns(site: Site): Promise<{ direct: number[]; jumped: number[] }> {
  const dir = await createTempDir('bench-turn-jump');
  const bastion = await startSshd();
  try {
    const knownHosts = join(dir.path, 'known_hosts');
    await writeFile(knownHosts, `${site.sshd.hostKeyLine}\n${bastion.hostKeyLine}\n`);
    const block = (alias: string, port: number, user: string, key: string, extra: string[] = []) =>
      [
        `Host ${alias}`,
        ...extra,
        '  HostName 127.0.0.1',
        `  Port ${String(port)}`,
        `  User ${user}`,
        `  IdentityFile ${key}`,
      ].join('\n');
    const vm = site.sshd;
    const configFile = join(dir.path, 'ssh_config');
    await writeFile(
      configFile,
      [
        block('direct', vm.port, vm.users.bash.name, vm.clientKeyPath),
        block('jumped', vm.port, vm.users.bash.name, vm.clientKeyPath, ['  ProxyJump bastion']),
        block('bastion', bastion.port, bastion.users.dash.name, bastion.clientKeyPath),
        `Host *\n  UserKnownHostsFile ${knownHosts}\n  GlobalKnownHostsFile none\n  IdentityAgent none\n`,
      ].join('\n'),
    );
    const bench = await BenchCatalyst.start(site, { CATALYST_SSH_CONFIG_FILE: configFile });
    try {
      for (const name of ['direct', 'jumped']) {
        const response = await bench.api('/api/hosts', {
          method: 'POST',
          body: {
            name,
            target: name,
            claudePath: site.claudePath,
            ideasRoot: `${vm.users.bash.home}/ideas-${name}`,
          },
        });
        if (!response.ok) throw new Error(`adding ${name}: ${await response.text()}`);
      }
      const times = { direct: [] as number[], jumped: [] as number[] };
      for (let index = 0; index < TURNS; index += 1) {
        for (const name of ['direct', 'jumped'] as const) {
          const ideaId = await bench.createIdea(`${name} ${String(index)}`, name);
          await bench.subscribe(ideaId);
          await new Promise((resolve) => setTimeout(resolve, TYPING_MS));
          times[name].push(await turn(bench, site, ideaId, 'Hello.'));
        }
      }
      return times;
    } finally {
      await bench.stop();
    }
  } finally {
    await bastion.stop();
    await dir.remove();
  }
}

/** `ssh user@vm claude -p …`, to the first text delta on its stdout. */
async function bareSshTurns(site: Site): Promise<number[]> {
  const dir = await createTempDir('bench-turn');
  const knownHosts = join(dir.path, 'known_hosts');
  await writeFile(knownHosts, `${site.sshd.hostKeyLine}\n`);
  const user = site.sshd.users.bash;
  const times: number[] = [];
  try {
    for (let index = 0; index < TURNS; index += 1) {
      site.model.enqueue(streamedText('Hello.', ' More words.'));
      const argv = [
        '-i',
        site.sshd.clientKeyPath,
        '-p',
        String(site.sshd.port),
        '-o',
        `UserKnownHostsFile=${knownHosts}`,
        '-o',
        'StrictHostKeyChecking=yes',
        '-o',
        'BatchMode=yes',
        `${user.name}@${site.sshd.host}`,
        `cd ${user.home} && ${site.claudePath} -p --output-format stream-json --verbose --include-partial-messages 'Say hello.'`,
      ];
      const sentAt = performance.now();
      const child = spawn('ssh', argv, { stdio: ['ignore', 'pipe', 'pipe'] });
      const ms = await new Promise<number>((resolve, reject) => {
        let out = '';
        let isFound = false;
        child.stdout.on('data', (chunk: Buffer) => {
          out += chunk.toString();
          if (!isFound && out.includes('"text_delta"')) {
            isFound = true;
            resolve(performance.now() - sentAt);
          }
        });
        child.once('exit', (code) => {
          if (!isFound) reject(new Error(`ssh exited ${String(code)} with no text: ${out.slice(0, 500)}`));
        });
      });
      await new Promise((resolve) => child.once('close', resolve));
      times.push(ms);
    }
  } finally {
    await dir.remove();
  }
  return times;
}

await withSite(async (site) => {
  say('bare ssh exec of claude -p …');
  const bare = await bareSshTurns(site);
  say(`bare ssh: p50 ${String(p50(bare))} ms (${bare.map((ms) => ms.toFixed(0)).join(', ')})`);

  const cold = await BenchCatalyst.start(site, { CATALYST_WARM_PER_HOST: '0' });
  const coldTimes = await laterTurns(cold, site, 'Cold');
  await cold.stop();
  say(`cold (a claude per turn, --resume): p50 ${String(p50(coldTimes))} ms`);

  const warm = await BenchCatalyst.start(site, {});
  const warmTimes = await laterTurns(warm, site, 'Warm');
  say(`warm (turns written into the waiting claude): p50 ${String(p50(warmTimes))} ms`);
  const prewarmTimes = await prewarmedTurns(warm, site);
  say(
    `pre-warmed (first turn, sent ${String(TYPING_MS)} ms after opening): p50 ${String(p50(prewarmTimes))} ms`,
  );
  const switchTimes = await modeSwitchTurns(warm, site);
  say(
    `first Build after a chat (composer switched, sent ${String(TYPING_MS)} ms later): p50 ${String(p50(switchTimes))} ms`,
  );
  await warm.stop();

  const jump = await jumpedTurns(site);
  say(
    `pre-warmed first turn on an ssh_config alias: direct p50 ${String(p50(jump.direct))} ms, through a ProxyJump bastion p50 ${String(p50(jump.jumped))} ms`,
  );

  const figures = {
    coldFirstTextMs: p50(coldTimes),
    warmFirstTextMs: p50(warmTimes),
    prewarmedFirstTextMs: p50(prewarmTimes),
    modeSwitchFirstTextMs: p50(switchTimes),
    bareSshFirstTextMs: p50(bare),
    warmVsBareSsh: Math.round((p50(bare) / p50(warmTimes)) * 10) / 10,
    aliasFirstTextMs: p50(jump.direct),
    jumpedFirstTextMs: p50(jump.jumped),
  };
  say(
    `goals: warm ≤ 100 ms ${figures.warmFirstTextMs <= 100 ? 'met' : 'MISSED'}, pre-warmed ≤ 100 ms ` +
      `${figures.prewarmedFirstTextMs <= 100 ? 'met' : 'MISSED'}, warmVsBareSsh ≥ 8 ${figures.warmVsBareSsh >= 8 ? 'met' : 'MISSED'}`,
  );
  console.log(JSON.stringify(figures));
});
