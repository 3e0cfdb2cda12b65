import {
  createContractCaller,
  networkReason,
  type CallFailure,
  type ContractCaller,
} from '@catalyst/client/contract-caller';
import { CliError } from './cli-error.ts';

/**
 * Catalyst's REST API, route by route of the contract (the client package's caller), with the token as a Bearer
 * header. An error answer becomes a CliError carrying the API's code and its sentence.
 */
export type ApiClient = ContractCaller<CliError>;

export function createApiClient(url: string, token: string): ApiClient {
  return createContractCaller({
    url,
    headers: () => ({ authorization: `Bearer ${token}` }),
    toError: (failure) => errorOf(url, failure),
  });
}

function errorOf(url: string, failure: CallFailure): CliError {
  const described = `${failure.method} ${failure.path}`;
  switch (failure.kind) {
    case 'unreachable':
      return unreachableError(url, failure.reason, failure.cause);
    case 'broken':
      return new CliError('CONNECTION_LOST', `The connection to Catalyst broke during ${described}.`, {
        cause: failure.cause,
      });
    case 'refused':
      // A code a newer server added: its sentence is still what a person needs.
      return new CliError(failure.code ?? 'UNEXPECTED_RESPONSE', failure.message);
    case 'unexpected':
      return new CliError(
        'UNEXPECTED_RESPONSE',
        `Catalyst's answer to ${described} is not what this client understands (is it the same version?): ${failure.detail}`,
      );
  }
}

export function unreachable(url: string, error: unknown): CliError {
  return unreachableError(url, networkReason(error), error);
}

function unreachableError(url: string, reason: string, cause: unknown): CliError {
  return new CliError('UNREACHABLE', `Cannot reach Catalyst at ${url} (${reason}): is it running?`, {
    cause,
  });
}
