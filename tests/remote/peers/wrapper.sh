#!/bin/sh
# A wrapper, as npx, uvx or a node shim are: it starts the real agent as its child.
#   wrapper.sh wait  PIDFIFO [AGENT ARGS...]   waits for the agent (the usual shim)
#   wrapper.sh leave PIDFIFO [AGENT ARGS...]   exits at once, leaving the agent running
mode=$1
shift
agent="$(dirname "$0")/lingering_agent.py"
if [ "$mode" = wait ]; then
  "$ACP_TEST_PYTHON" "$agent" "$@"
else
  exec 3<&0  # a background job's stdin would be /dev/null: hand it ours explicitly
  "$ACP_TEST_PYTHON" "$agent" "$@" <&3 3<&- &
fi
