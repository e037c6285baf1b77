"""Run an agent command and write each line it sends its client to FILE: the client's transcript.

python record.py FILE -- AGENT_CMD [ARGS...]
"""

from __future__ import annotations

import subprocess
import sys
import threading

if __name__ == "__main__":
    path, command = sys.argv[1], sys.argv[3:]
    child = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    assert child.stdin is not None and child.stdout is not None
    pipe_in, pipe_out = child.stdin, child.stdout

    def feed() -> None:
        for line in sys.stdin.buffer:
            pipe_in.write(line)
            pipe_in.flush()
        pipe_in.close()

    threading.Thread(target=feed, daemon=True).start()
    with open(path, "wb") as transcript:
        for line in pipe_out:
            transcript.write(line)
            transcript.flush()
            sys.stdout.buffer.write(line)
            sys.stdout.buffer.flush()
    sys.exit(child.wait())
