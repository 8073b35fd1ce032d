#!/usr/bin/env python3
# A stand-in for a wrong rewrite: runs the real tool given as the first
# argument with the rest, and turns every sinter.add of its output into a
# sinter.sub (difftest-catches.test).
import subprocess
import sys

proc = subprocess.run(sys.argv[1:], capture_output=True, text=True)
sys.stderr.write(proc.stderr)
sys.stdout.write(proc.stdout.replace("sinter.add ", "sinter.sub "))
sys.exit(proc.returncode)
