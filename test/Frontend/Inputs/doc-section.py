"""Prints one section of docs/language.md for the reference test.

Usage: doc-section.py FILE table|example

`table` prints the lines between '<!-- builtins:begin -->' and
'<!-- builtins:end -->' (the table `sinterc --list-builtins` prints);
`example` prints the first fenced code block (the example model).
"""

import sys

path, section = sys.argv[1], sys.argv[2]
lines = open(path, encoding="utf-8").read().splitlines()
if section == "table":
    begin = lines.index("<!-- builtins:begin -->")
    end = lines.index("<!-- builtins:end -->")
    selected = lines[begin + 1:end]
else:
    begin = lines.index("```")
    end = lines.index("```", begin + 1)
    selected = lines[begin + 1:end]
print("\n".join(selected))
