import type { CliMessage, CliSystemMessage } from '@catalyst/protocol';

const MAX_LINE_CHARS = 240;

/** One line for a CLI message relayed as `claude:event`: its type/subtype first, then what matters about it. */
export function describeCliMessage(message: CliMessage): string {
  return shorten(describe(message));
}

function describe(message: CliMessage): string {
  switch (message.type) {
    case 'system':
      return `system/${message.subtype} ${describeSystem(message)}`.trimEnd();
    case 'assistant': {
      const blocks = message.message.content.map((block) => block.type).join(', ');
      return message.error === undefined ? `assistant ${blocks}` : `assistant error: ${message.error}`;
    }
    case 'user': {
      const flags = [message.isReplay ? 'replay' : '', message.isSynthetic ? 'synthetic' : ''].filter(
        Boolean,
      );
      // Text the CLI itself wrote into the conversation ("[Request interrupted by user]") is worth reading.
      const content = message.message.content;
      const text =
        typeof content === 'string'
          ? content
          : content
              .map((block) => ('text' in block && typeof block.text === 'string' ? block.text : block.type))
              .join(', ');
      return `user${flags.length > 0 ? ` (${flags.join(', ')})` : ''} ${text}`.trimEnd();
    }
    case 'result':
      return `result/${message.subtype}`;
    case 'stream_event':
      return `stream_event/${message.event.type}`;
    case 'control_request':
      return `control_request/${message.request.subtype}`;
    case 'control_response': {
      const response = message.response;
      return response.subtype === 'error'
        ? `control_response/error ${response.error}`
        : `control_response/success`;
    }
    case 'control_cancel_request':
      return `control_cancel_request ${message.request_id}`;
    case 'tool_progress':
      return `tool_progress ${message.tool_name} running for ${String(message.elapsed_time_seconds)} s`;
    case 'unknown': {
      const origin = [message.originalType, message.originalSubtype].filter(Boolean).join('/');
      return `unknown${origin === '' ? '' : ` ${origin}`}: ${message.reason}`;
    }
  }
}

function describeSystem(message: CliSystemMessage): string {
  switch (message.subtype) {
    case 'init':
      return message.model;
    case 'api_retry': {
      const status = message.error_status === null ? '' : ` ${message.error_status}`;
      const delay = (message.retry_delay_ms / 1000).toFixed(1);
      return `attempt ${message.attempt} of ${message.max_retries}:${status} ${message.error}, retrying in ${delay} s`;
    }
    case 'status':
      return message.status ?? message.compact_result ?? message.permissionMode ?? '';
    case 'thinking_tokens':
      return `about ${message.estimated_tokens} tokens`;
    case 'task_started':
      return message.description;
    case 'task_updated':
      return message.patch.status ?? '';
    case 'task_notification':
      return `${message.status}: ${message.summary}`;
    case 'background_tasks_changed':
      return describeBackgroundTasks(message.tasks);
    case 'compact_boundary':
      return `${message.compact_metadata.trigger}, ${message.compact_metadata.pre_tokens} tokens before`;
  }
}

/** The tasks a `background_tasks_changed` line lists, by what they do. */
export function describeBackgroundTasks(
  tasks: readonly { task_id: string; description?: string | undefined }[],
): string {
  return tasks.length === 0 ? 'none' : tasks.map((task) => task.description ?? task.task_id).join(', ');
}

function shorten(line: string): string {
  const single = line.replace(/\s+/g, ' ');
  return single.length <= MAX_LINE_CHARS ? single : `${single.slice(0, MAX_LINE_CHARS - 1)}…`;
}
