import { existsSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createDenyResponse, createInterruptRequest, type CliMessage } from '@catalyst/protocol';
import {
  collectTexts,
  collectToolResults,
  createTempDir,
  findDescendants,
  httpError,
  isProcessGone,
  killAllClaudes,
  longRunningCommand,
  readCmdline,
  startScriptedModel,
  stall,
  text,
  thinkingThenText,
  toolUse,
  waitUntil,
  type ScriptedModel,
  type TempDir,
} from '@catalyst/testkit';
import { QuestionHandler } from '../src/runs/core/question-handler.ts';
import { messagesOf, openClaudeSession, untypedEvents, type ClaudeSessionOptions } from './claude-session.ts';

// The real claude CLI against the scripted model: every line it prints goes through the backend's own parser,
// and every test also asserts that nothing came out untyped.

let model: ScriptedModel;
let home: TempDir;
let work: TempDir;

beforeEach(async () => {
  model = await startScriptedModel();
  home = await createTempDir('home');
  work = await createTempDir('work');
});

afterEach(async () => {
  const leftovers = await killAllClaudes();
  await model.close();
  await home.remove();
  await work.remove();
  expect(leftovers, 'a claude process outlived its test').toBe(0);
});

function open(extra: Partial<ClaudeSessionOptions> = {}) {
  return openClaudeSession({ model, cwd: work.path, home: home.path, ...extra });
}

function toolResultsOf(messages: CliMessage[]) {
  return messages.flatMap((message) =>
    message.type === 'user' && Array.isArray(message.message.content)
      ? message.message.content.filter((block) => block.type === 'tool_result')
      : [],
  );
}

describe('the real claude CLI, parsed by the backend', () => {
  it('relays plain text and thinking, and ends in a successful result', async () => {
    model.enqueue(thinkingThenText('The user greets me.', 'Hello from the scripted model.'));
    const session = open();
    const turn = await session.send('hi there');

    expect(turn.result).toMatchObject({
      success: true,
      subtype: 'success',
      result: 'Hello from the scripted model.',
    });
    expect(turn.result.numTurns).toBe(1);
    expect(turn.result.costUsd).toBeGreaterThan(0);
    const messages = messagesOf(turn.events);
    expect(messages[0]).toMatchObject({ type: 'system', subtype: 'init', cwd: work.path });
    const blocks = messages.flatMap((m) => (m.type === 'assistant' ? m.message.content : []));
    expect(blocks.map((block) => block.type)).toEqual(['thinking', 'text']);
    expect(collectTexts(await model.waitForRequest(0))).toContain('hi there');
    expect(untypedEvents(session.events)).toEqual([]);
    expect((await session.close()).code).toBe(0);
  });

  it('runs Read and sends the file to the model', async () => {
    await writeFile(join(work.path, 'sample.txt'), 'line one\nline two\n');
    model.enqueue(
      toolUse('Read', { file_path: join(work.path, 'sample.txt') }, "I'll read it."),
      text('Two lines.'),
    );
    const session = open();
    const turn = await session.send('read sample.txt');

    expect(turn.result).toMatchObject({ success: true, result: 'Two lines.', numTurns: 2 });
    const [toolResult] = collectToolResults(await model.waitForRequest(1));
    expect(toolResult?.content).toContain('line two');
    expect(toolResult?.is_error).toBeUndefined();
    expect(untypedEvents(session.events)).toEqual([]);
    await session.close();
  });

  it('runs a read-only Bash command without asking', async () => {
    model.enqueue(
      toolUse('Bash', { command: 'echo hello-from-bash && pwd', description: 'Say hello' }),
      text('Done.'),
    );
    const session = open();
    const turn = await session.send('say hello');

    const [result] = toolResultsOf(messagesOf(turn.events));
    expect(result).toMatchObject({ is_error: false, content: `hello-from-bash\n${work.path}` });
    expect(turn.result.success).toBe(true);
    expect(untypedEvents(session.events)).toEqual([]);
    await session.close();
  });

  it('asks before Write; a denial reaches the model, is recorded, and writes nothing', async () => {
    const target = join(work.path, 'should-not-exist.txt');
    model.enqueue(toolUse('Write', { file_path: target, content: 'nope\n' }), text('Understood.'));
    const asked: string[] = [];
    const session = open({
      onCanUseTool: (requestId, request) => {
        asked.push(request.tool_name);
        return createDenyResponse(requestId, 'Chat mode cannot write files.');
      },
    });
    const turn = await session.send('write a file');

    expect(asked).toEqual(['Write']);
    expect(existsSync(target)).toBe(false);
    expect(turn.result.success).toBe(true);
    expect(turn.result.permissionDenials.map((denial) => denial.tool_name)).toEqual(['Write']);
    const [toolResult] = collectToolResults(await model.waitForRequest(1));
    expect(toolResult).toMatchObject({ content: 'Chat mode cannot write files.', is_error: true });
    expect(untypedEvents(session.events)).toEqual([]);
    await session.close();
  });

  it('routes AskUserQuestion through the QuestionHandler and the model receives the answers', async () => {
    const questions = [
      {
        question: 'Which color do you prefer?',
        header: 'Color',
        options: [
          { label: 'Red', description: 'Warm' },
          { label: 'Blue', description: 'Cool' },
        ],
        multiSelect: false,
      },
      {
        question: 'Which toppings?',
        header: 'Toppings',
        options: [
          { label: 'Cheese', description: 'Classic' },
          { label: 'Olives', description: 'Salty' },
          { label: 'Basil', description: 'Fresh' },
        ],
        multiSelect: true,
      },
    ];
    model.enqueue(toolUse('AskUserQuestion', { questions }), text('Blue with cheese and olives.'));
    const handler = new QuestionHandler();
    handler.on('question:pending', (pending) => {
      expect(pending.questions.map((q) => q.question)).toEqual([
        'Which color do you prefer?',
        'Which toppings?',
      ]);
      handler.submitAnswer(pending.id, {
        'Which color do you prefer?': 'Blue',
        'Which toppings?': ['Cheese', 'Olives'],
      });
    });
    const session = open({ onCanUseTool: (requestId, request) => handler.ask({ requestId, request }) });
    const turn = await session.send('ask me');

    expect(turn.result.success).toBe(true);
    expect(handler.getPending()).toEqual([]);
    const [toolResult] = collectToolResults(await model.waitForRequest(1));
    expect(toolResult?.content).toContain('"Which color do you prefer?"="Blue"');
    expect(toolResult?.content).toContain('"Which toppings?"="Cheese, Olives"');
    expect(untypedEvents(session.events)).toEqual([]);
    await session.close();
  });

  it('interrupts a stalled turn, and the same process takes the next message', async () => {
    model.enqueue(stall('Part one of the'));
    const session = open();
    const turnPromise = session.send('tell me a story');
    await model.waitForRequest(0);
    session.sendControl(createInterruptRequest('int-1'));
    const turn = await turnPromise;

    expect(turn.result).toMatchObject({
      success: false,
      subtype: 'error_during_execution',
      terminalReason: 'aborted_streaming',
    });
    model.enqueue(text('After the interrupt.'));
    expect((await session.send('go on')).result).toMatchObject({
      success: true,
      result: 'After the interrupt.',
    });
    expect(untypedEvents(session.events)).toEqual([]);
    await session.close();
  });

  it('interrupts a running Bash tool and its child process is gone', async () => {
    model.enqueue(toolUse('Bash', { command: longRunningCommand(317), description: 'Sleep a long time' }));
    const session = open();
    const turnPromise = session.send('sleep');
    await session.waitFor(
      (e) => e.kind === 'message' && e.message.type === 'system' && e.message.subtype === 'task_started',
    );
    // This CLI's own sleep (its descendant), not one another run may have left on the machine.
    let sleepPid: number | undefined;
    await waitUntil(
      async () => {
        const below = await findDescendants(session.process.pid);
        const cmdlines = await Promise.all(below.map((pid) => readCmdline(pid)));
        sleepPid = below.find((_, index) => cmdlines[index] === 'sleep 317');
        return sleepPid !== undefined;
      },
      { timeoutMs: 5000, what: "the Bash tool's sleep below this claude" },
    );
    session.sendControl(createInterruptRequest('int-2'));
    const turn = await turnPromise;

    expect(turn.result).toMatchObject({
      success: false,
      subtype: 'error_during_execution',
      terminalReason: 'aborted_tools',
    });
    await waitUntil(() => isProcessGone(sleepPid ?? 0), { timeoutMs: 5000, what: 'the sleep to be gone' });
    expect(untypedEvents(session.events)).toEqual([]);
    await session.close();
  });

  it('resumes a session: the second turn carries the first to the model', async () => {
    model.enqueue(text('I will remember PERSIMMON.'));
    const first = open();
    const firstTurn = await first.send('The codeword is PERSIMMON.');
    expect((await first.close()).code).toBe(0);

    model.enqueue(text('It was PERSIMMON.'));
    const second = open({ command: { resume: firstTurn.result.sessionId } });
    const secondTurn = await second.send('What was the codeword?');

    expect(secondTurn.result).toMatchObject({ success: true, sessionId: firstTurn.result.sessionId });
    const texts = collectTexts(await model.waitForRequest(1));
    expect(texts).toEqual(
      expect.arrayContaining(['The codeword is PERSIMMON.', 'I will remember PERSIMMON.']),
    );
    expect(untypedEvents(second.events)).toEqual([]);
    await second.close();
  });

  it('stops at --max-turns 1 with error_max_turns', async () => {
    model.enqueue(toolUse('Bash', { command: 'echo one', description: 'One' }), text('never sent'));
    const session = open({ command: { maxTurns: 1 } });
    const turn = await session.send('count');

    expect(turn.result).toMatchObject({
      success: false,
      subtype: 'error_max_turns',
      error: 'Reached maximum number of turns (1)',
      numTurns: 2,
      terminalReason: 'max_turns',
    });
    expect(model.remainingReplies()).toBe(1);
    expect(untypedEvents(session.events)).toEqual([]);
    expect((await session.close()).code).toBe(1);
  });

  it('reports an HTTP 500 from the model as a failed result with the API error text', async () => {
    model.enqueue(
      httpError(500, 'Internal server error (scripted)'),
      httpError(500, 'Internal server error (scripted)'),
    );
    const session = open({ maxRetries: 1 });
    const turn = await session.send('hello?');

    expect(turn.result).toMatchObject({ success: false, subtype: 'success', apiErrorStatus: 500 });
    expect(turn.result.error).toMatch(/^API Error: 500/);
    const messages = messagesOf(turn.events);
    expect(messages.some((m) => m.type === 'system' && m.subtype === 'api_retry')).toBe(true);
    expect(untypedEvents(session.events)).toEqual([]);
    expect((await session.close()).code).toBe(1);
  });
});
