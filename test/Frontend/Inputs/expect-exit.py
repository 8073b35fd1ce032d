"""Runs a command and checks its exit status.

Usage: expect-exit.py STATUS COMMAND [ARGS...]

Prints the command's stdout and stderr (merged, in order) and exits 0 when
the command exited with STATUS, 1 otherwise, so that lit can check both the
exit status and, through FileCheck, the message.
"""

import subprocess
import sys

expected = int(sys.argv[1])
result = subprocess.run(sys.argv[2:], stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
sys.stdout.buffer.write(result.stdout)
if result.returncode != expected:
    print(f"expect-exit.py: exit status {result.returncode}, expected {expected}")
    sys.exit(1)
