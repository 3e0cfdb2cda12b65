# shellcheck shell=sh
# The job's start, shared by the run wrapper and a session's supervisor: the job's subshell calls these between its
# cd and its exec. The including script sets `cr_nenv` (how many NAME=value arguments come first) and `cr_run`.
# shellcheck disable=SC2154

# Exports the first cr_nenv arguments, each NAME=value (runs/core/claude-command.ts renderEnvAssignments checked the
# names); the caller then drops them with `shift "$cr_nenv"`.
cr_export_env() {
  cr_i=0
  while [ "$cr_i" -lt "$cr_nenv" ]; do
    export "${1?}"
    shift
    cr_i=$((cr_i + 1))
  done
}

# The job's binary, looked up with the env's PATH: missing, the run dir says so and the job ends with 127
# (CLI_NOT_FOUND_EXIT_CODE, core/run-wrapper.ts).
cr_require_binary() {
  command -v "$1" >/dev/null 2>&1 || {
    printf '' >"$cr_run/not-found"
    exit 127
  }
}
