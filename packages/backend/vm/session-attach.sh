# shellcheck shell=sh
# The attach script A (issue 11; core/vm-job-shell.ts): `/bin/sh -c "<this>" catalyst-attach <first byte of
# out> <first byte of err> <stale s> <1: wait for the start>`, the session id the first line of stdin and its
# follower (hex, or `-`: the Catalyst run it attaches for, job-run.ts) the second. It follows
# `out` and `err` from those bytes (1 is the first) and passes stdin lines on: `{…` into the FIFO, `h` heartbeat,
# `t` / `r` turn running / idle, `e` close the job's stdin, `i` SIGINT to the job, `c` stop. Closing A's channel
# stops nothing.
# Refuses with exit 4 (`@@catalyst-attach busy <age>`) while another A holds the lock and its Catalyst is heard from
# (`heartbeat` younger than <stale s>); an A whose Catalyst has been silent longer (its connection died without sshd
# noticing) is killed and the lock taken over, and so is one opened for the same follower, at once: that follower
# attaches again only once its own attachment's channel is gone (issue 39). Exit 3 (`@@catalyst-attach gone`) when
# there is no such session.
# Prints `@@catalyst-attach start` on stdout and stderr once it holds the session; when the session ends, A ends
# with `@@catalyst-session-end code=… reason=…` on stderr; when its own stdin ends (the channel closed), it ends and
# the session goes on.

cr_out_from=$1 cr_err_from=$2 cr_stale=$3 cr_await=$4
# shellcheck source=lib/stop.sh
. ./lib/stop.sh
# shellcheck source=lib/session.sh
. ./lib/session.sh
cr_polls=50
cr_read_tag || {
  printf 'catalyst-attach: no valid session id on stdin\n' >&2
  exit 2
}
IFS= read -r cr_me
case $cr_me in '' | *[!0-9a-f]*) cr_me=- ;; esac
# The first attachment of a new session is opened before the session is started (issue 25, item 4): it holds one of
# the host's run channels, so a session never starts while its attachment waits in the pool's queue past the lease
# (a busy host then ended it as if Catalyst were gone). It waits here, up to 40 s, for the start script to have
# started the job; a start that takes longer (its control channel queued too) is refused as `gone`, never followed
# half made, and Catalyst attaches again once the start is done (job-run.ts).
if [ "$cr_await" = 1 ]; then
  cr_started() {
    cr_session_dir && { { [ -s "$cr_run/sup" ] && [ -s "$cr_run/job" ]; } || [ -e "$cr_run/status" ]; }
  }
  cr_i=0
  while [ "$cr_i" -lt 400 ] && ! cr_started; do
    sleep 0.1
    cr_i=$((cr_i + 1))
  done
  cr_started || {
    printf '\n@@catalyst-attach gone\n' >&2
    exit 3
  }
fi
cr_session_dir || {
  printf '\n@@catalyst-attach gone\n' >&2
  exit 3
}
cd "$cr_run" || exit 3
exec 9>>lock
# Held: by a live attacher (its Catalyst touches `heartbeat`), refused; by one whose Catalyst has not been heard from
# for cr_stale seconds (a connection that died without a word reaching sshd), or by this follower's own earlier
# attachment (its Catalyst knows that channel is gone), displaced.
if ! flock -n 9; then
  cr_now=$(date +%s)
  cr_age heartbeat
  [ "$cr_a" -ge "$cr_stale" ] || cr_held_by "$cr_me" || {
    printf '\n@@catalyst-attach busy %s\n' "$cr_a" >&2
    exit 4
  }
  cr_displace
  flock -w 5 9 || {
    printf '\n@@catalyst-attach busy %s\n' "$cr_a" >&2
    exit 4
  }
fi
read -r cr_sup <sup
read -r cr_job <job
printf '@@catalyst-attach start\n'
printf '@@catalyst-attach start\n' >&2
# A session whose S died before this attach (a reboot: its pid may be another process now) ends here, once.
[ -e status ] || cr_sup_alive sup || cr_vanish
cr_start_of "$cr_sup"
cr_sst=$cr_s
: >heartbeat
exec 3<&0 </dev/null
# The tails follow until W ends: W, A's own child, ends once S has written its status (all output is in the files
# by then) or S is gone: no process with S's pid and start time (a pid taken over by another process is not S). Not
# `--pid` of S itself: S is not our child, and a zombie S that a slow init has not reaped yet still has its /proc
# entry (seen here: a second or more). Twice a second: a `sleep` is a process, and W waits as long as the session
# is followed (all day for a warm one); a turn's end comes in the output, only the session's own end waits on W.
(while [ ! -e status ] && cr_start_of "$cr_sup" && [ "$cr_s" = "$cr_sst" ]; do sleep 0.5; done) \
  </dev/null >/dev/null 2>&1 9>&- 3<&- &
cr_w=$!
tail -c "+$cr_out_from" -s 0.1 --pid="$cr_w" -f out 9>&- 3<&- &
cr_t1=$!
tail -c "+$cr_err_from" -s 0.1 --pid="$cr_w" -f err >&2 9>&- 3<&- &
cr_t2=$!
(
  while IFS= read -r cr_l; do
    case $cr_l in
      '{'*) printf '%s\n' "$cr_l" 1<>in ;;
      h) : >heartbeat ;;
      t) printf turn >state ;;
      r) printf idle >state ;;
      e) kill -USR1 "$cr_sup" 2>/dev/null ;;
      i) kill -INT "$cr_job" 2>/dev/null ;;
      c) cr_claim cancel && cr_stop "$cr_job" "$cr_job" ;;
    esac
  done
  kill "$cr_t1" "$cr_t2" "$cr_w" 2>/dev/null
) <&3 3<&- 9>&- &
cr_reader=$!
exec 3<&-
# Who holds the lock, for the next attacher that has to displace it.
printf '%s %s %s %s %s %s\n' "$$" "$cr_me" "$cr_w" "$cr_t1" "$cr_t2" "$cr_reader" >holder 2>/dev/null
wait "$cr_t1"
wait "$cr_t2"
# W ended: S wrote its status, or S is gone without one (then it never will: A ends the session), or this
# attachment's own channel closed (S lives on: the session goes on).
[ -e status ] || cr_sup_alive sup || cr_vanish
[ -e status ] || exit 0
kill "$cr_reader" 2>/dev/null
read -r cr_status <status
printf '\n@@catalyst-session-end %s\n' "$cr_status" >&2
