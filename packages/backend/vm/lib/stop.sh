# shellcheck shell=sh
# Stopping a run by its tag (ssh-field-notes.md §3a, §3b): included by the run wrapper, its watchdog, the kill and
# sweep scripts and every session script. Plain sh for dash and bash alike: no `local`, no arrays, no `$'…'`,
# `kill -SIG -PGID` (dash rejects `--` and `-s`, §3a). Every name starts with `cr_` so nothing collides with the
# job's environment. The including script sets `cr_tag` (the run tag, or a session's id), `cr_polls` (the grace
# period in 0.1 s polls) and, for cr_claim, `cr_run` (the run dir).
# shellcheck disable=SC2154

cr_known=''
# One grep over every environ (-z -x: the whole NUL-separated entry, so a longer tag never matches); zombies have an
# empty environ and drop out by themselves. Excludes the caller, as the field notes do.
cr_tagged() {
  # /proc/<pid>/environ paths: no spaces to split wrongly.
  # shellcheck disable=SC2013
  for cr_f in $(grep -laszxF "CATALYST_RUN_TAG=$cr_tag" /proc/[0-9]*/environ 2>/dev/null); do
    cr_p=${cr_f#/proc/}
    cr_p=${cr_p%/environ}
    [ "$cr_p" = "$$" ] || printf '%s\n' "$cr_p"
  done
}
# The fields of /proc/$1/stat after the command's name (which may hold spaces and parentheses) into cr_sf, with
# builtins only: the state first, then ppid, pgrp, … (field 3 of proc(5) on).
cr_stat() {
  cr_sf=
  read -r cr_sf 2>/dev/null <"/proc/$1/stat" || return 1
  cr_sf=${cr_sf##*) }
}
# The start time of process $1 (field 22 of /proc/$1/stat, clock ticks since boot) into cr_s, with builtins only.
cr_start_of() {
  cr_s=
  cr_stat "$1" || return 1
  # The fields, split on spaces on purpose.
  # shellcheck disable=SC2086
  set -- $cr_sf
  [ "$#" -ge 20 ] || return 1
  shift 19
  cr_s=$1
}
# Now, on the clock of the start times, into cr_now_t: the start time of a fresh subshell (`/proc/self` there).
cr_tick() {
  cr_now_t=$(cr_start_of self && printf '%s' "$cr_s")
}
# Whether pid $1 is still the job its starter wrote to the run dir's `job-start` (`<pid> <start time>`, issue 39):
# the same pid and start time, so a process that took over the pid later is not it, and the job still is after it
# dropped its environment (`exec env -i`).
cr_is_job() {
  cr_jp='' cr_js=''
  if [ -z "$cr_run" ] || ! read -r cr_jp cr_js 2>/dev/null <"$cr_run/job-start"; then return 1; fi
  [ "$1" = "$cr_jp" ] && cr_start_of "$1" && [ "$cr_s" = "$cr_js" ]
}
# Whether pid $1 is still this run's, not a process that took over a pid written down before (pid reuse, a reboot:
# issue 25, item 5): it carries the tag (CATALYST_RUN_TAG after the job's exec; `cr_tag=` in the environment of a
# session's supervisor and its forks, the job's subshell before its exec among them), it is the job by its start time
# (cr_is_job), or it is a child of this very shell (the wrapper's job before its exec; a zombie not yet reaped).
cr_ours() {
  grep -qszxF -e "CATALYST_RUN_TAG=$cr_tag" -e "cr_tag=$cr_tag" "/proc/$1/environ" && return 0
  cr_is_job "$1" && return 0
  cr_stat "$1" || return 1
  # The fields, split on spaces on purpose.
  # shellcheck disable=SC2086
  set -- $cr_sf
  [ "$2" = "$$" ]
}
# The live (not zombie) processes of session $1 but this shell into cr_mpids; cr_old set when one of the session's
# processes (zombies too) started at or before tick $2. One awk over every /proc/<pid>/stat (a shell's `read` costs a
# system call per byte): the pid from the file's name, the fields after the last `) ` (a command's name may hold
# spaces, parentheses and newlines), and a file that is gone by then is skipped (getline, not awk's own file list).
cr_members() {
  # Printed as one line: 1 or 0 for cr_old, then the pids.
  # shellcheck disable=SC2046
  set -- $(awk -v sid="$1" -v before="$2" -v self="$$" 'BEGIN {
    old = 0
    for (i = 1; i < ARGC; i++) {
      s = ""
      while ((getline l <ARGV[i]) > 0) s = s "\n" l
      close(ARGV[i])
      for (p = 1; (k = index(substr(s, p), ") ")) > 0; p += k + 1) {}
      if (p == 1 || split(substr(s, p), f, " ") < 20 || f[4] != sid) continue
      pid = ARGV[i]
      gsub(/[^0-9]/, "", pid)
      if (before != "" && f[20] + 0 <= before + 0) old = 1
      if (f[1] != "Z" && pid != self) pids = pids " " pid
    }
    print old pids
  }' /proc/[0-9]*/stat 2>/dev/null)
  cr_old=''
  [ "$1" != 1 ] || cr_old=1
  [ "$#" -eq 0 ] || shift
  cr_mpids=$*
}

# Whether session $1, the job's (`setsid` made the job its leader, so its id is the job's pid), is still the run's;
# its processes then in cr_mpids. What drops the tag (`env -i`) keeps the session unless it calls setsid itself. The
# session is the run's while the job leads it (cr_is_job), or when one of its processes started no later than
# cr_known, a tick at which it was the run's (in that very tick too: a fast host forks, execs and ends a job within
# one): a process keeps its session id from its fork on, and Linux hands a pid out again only once no process has
# it as session id, so the session has been the run's throughout. cr_known then moves on to now, taken before
# looking. A stopper sets cr_known itself only when it saw the job a moment ago (the wrapper and
# a session's supervisor, right after their `wait` reaped it: pids are handed out in turn, so the job's comes back
# only after the whole range has been used again, never in that moment).
cr_session_ours() {
  cr_tick
  cr_members "$1" "$cr_known"
  cr_is_job "$1" || [ -n "$cr_old" ] || {
    cr_mpids=''
    return 1
  }
  cr_known=$cr_now_t
}
# Group $1 is the run's: its leader is ours, or one of the tagged pids ($2…) is in it (a group id is not handed out
# again while the group has a member).
cr_group_ours() {
  cr_g=$1
  shift
  cr_ours "$cr_g" && return 0
  for cr_p in "$@"; do
    cr_stat "$cr_p" || continue
    # shellcheck disable=SC2086
    set -- $cr_sf
    [ "$3" = "$cr_g" ] && return 0
  done
  return 1
}
# $1 the signal, $2 the job's pid (before it execs, its subshell does not carry the tag yet), $3 its group, which is
# also its session; the pid, the group and the session only when they are still the run's. cr_sess: the session,
# when it was.
cr_signal() {
  cr_pids=$(cr_tagged)
  cr_job_pid='' cr_sess='' cr_mpids=''
  [ -z "$2" ] || ! cr_ours "$2" || cr_job_pid=$2
  [ -z "$3" ] || ! cr_session_ours "$3" || cr_sess=$3
  # The group first, while its leader is most likely alive: one kill reaches every member, a child forked a moment
  # ago among them (Linux undoes a fork that a group's signal meets). Signalled after the pids, the job's shell could
  # start a child between the lists above and its own end, a child in no list and in a group whose leader is gone
  # by then, left to run. The group is the run's when its session was (it shares the job's pid, which is not handed
  # out again while the session has a member), or by cr_group_ours.
  # shellcheck disable=SC2086
  [ -z "$3" ] || { [ -z "$cr_sess" ] && ! cr_group_ours "$3" $cr_pids; } || kill "-$1" "-$3" 2>/dev/null
  # The pids, split on purpose.
  # shellcheck disable=SC2086
  [ -z "$cr_pids$cr_job_pid$cr_mpids" ] || kill "-$1" $cr_pids $cr_job_pid $cr_mpids 2>/dev/null
}
# The run's processes that are left: the tagged ones, and those of the job's session once cr_signal found it the
# run's.
cr_left() {
  cr_tagged
  [ -z "$cr_sess" ] || {
    cr_members "$cr_sess" ''
    # shellcheck disable=SC2086
    [ -z "$cr_mpids" ] || printf '%s\n' $cr_mpids
  }
}
# TERM, poll every 0.1 s while the run's processes remain, for at most the grace period (cr_polls tenths of a second,
# by the clock of cr_tick: 100 ticks a second, USER_HZ, on every Linux), then KILL the set. The clock and not a count
# of polls: each poll lists the run's processes, which takes longer on a busy host, so a count let the grace grow.
cr_stop() {
  cr_signal TERM "$1" "$2"
  cr_tick
  cr_until=$((cr_now_t + cr_polls * 10))
  while [ -n "$(cr_left)" ]; do
    cr_tick
    [ "$cr_now_t" -lt "$cr_until" ] || break
    sleep 0.1
  done
  cr_signal KILL "$1" "$2"
}
# The first stopper wins (ln is atomic and fails when the reason exists); a reader never sees a half-written reason.
# If the run dir is gone there is nothing to claim, so the caller stops anyway. The claim is written with noclobber
# (O_EXCL), so it never follows a symlink nor overwrites anything.
cr_claim() {
  (set -C; printf '%s\n' "$1" >"$cr_run/claim-$1") 2>/dev/null || return 0
  ln "$cr_run/claim-$1" "$cr_run/reason" 2>/dev/null
}
# Every root and run dir is used only when it is a real directory owned by us, never a symlink; a root is then made
# 0700 (issue 16, item 2: on a shared VM another user can create /tmp/catalyst-runs-<uid> first, or plant
# <root>/<tag> in it). Inside a root of ours that is 0700 nobody but us (and root) can add an entry, so an owned run
# dir there was made by us, with `mkdir -m 700`.
cr_own_dir() {
  [ -d "$1" ] && [ ! -h "$1" ] && [ -O "$1" ]
}
cr_own_root() {
  cr_own_dir "$1" && chmod 700 "$1" 2>/dev/null
}
# RUN_TAG_PATTERN (core/run-wrapper.ts) in builtins only: the tag never goes to a helper's argv.
cr_is_tag() {
  case $1 in '' | *[!a-z0-9-]*) return 1 ;; esac
  [ "${#1}" -ge 8 ] && [ "${#1}" -le 64 ]
}
# The pid written in file $1, if it is one.
cr_pid_in() {
  cr_v=
  read -r cr_v 2>/dev/null <"$1"
  case $cr_v in '' | *[!0-9]*) ;; *) printf '%s' "$cr_v" ;; esac
}
