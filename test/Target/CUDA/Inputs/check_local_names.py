#!/usr/bin/env python3
"""Checks that generated code cannot capture a model's names.

    check_local_names.py SINTERC WORK MODEL.sinter...

Compiles each model, then collects every identifier that the generated code
declares (parameters, locals, loop variables) in the functions that see a
model's names: those with a parameter named by the model (its inputs,
params, dims, outputs, intermediate values), the kernels and launches. It
drops the model's own names (every identifier of its source, with the
namer's "_<n>" suffixes, and names derived from one by '_'), and the names
the namer gives results and kernels, then compiles one model whose inputs
carry all the names left: each must be renamed (sinter/Support/Names.h). A
name kept as is would sit beside, or shadow, the emitter's own in some
kernel, as an input named `u` once did in a warp-run kernel's loop. Prints
each name kept and exits 1, or prints the count checked."""
import os
import re
import subprocess
import sys

DECLARATION = re.compile(
    r"(?:^|[;{(,]|\n)\s*(?:const\s+)?"
    r"(?:int|int64_t|uint32_t|float|double|bool|unsigned|size_t|float4|"
    r"float2|dim3|auto|cudaError_t|sinter_status|"
    r"dev::\w+(?:<[^;=(){}]*>)?)\b(?:\s*\*\s*|\s+)(?:const\s+)?(?:\*\s*)?"
    r"(?:__restrict__\s+)?([A-Za-z_]\w*)\s*(?=[\[=;,){])")
IDENTIFIER = re.compile(r"[A-Za-z_]\w*")
# Names the namer gives results, kernels and prepared values: unique by
# construction, whatever the model's names (and those derived from them).
NAMER = re.compile(r"^(k\d+_r\d+|prepared\d+|out\d+|kfill\d+)(_|$)")


def functions(source):
    """(signature, body) of each top-level function definition."""
    depth, start, result, last = 0, None, [], 0
    for i, ch in enumerate(source):
        if ch == "{":
            if depth == 0:
                start = i
            depth += 1
        elif ch == "}":
            depth -= 1
            if depth == 0 and start is not None:
                signature = source[last:start]
                if signature.rstrip().endswith(")") or "__launch_bounds__" in signature:
                    result.append((signature, source[start:i + 1]))
                last = i + 1
        elif ch == ";" and depth == 0:
            last = i + 1
    return result


# Words of the .sinter language, not names.
KEYWORDS = {"model", "input", "param", "dim", "return", "f32", "f16"}


def is_own(name, own):
    # The namer's renamings: "_<n>" suffixes, a "u_" prefix.
    base = re.sub(r"_\d+$", "", name)
    if base.startswith("u_") and base[2:] in own:
        return True
    return (name in own or base in own or NAMER.match(name) or
            any(name.startswith(o + "_") for o in own))


def main():
    sinterc, work = sys.argv[1:3]
    emitted = set()
    for path in sys.argv[3:]:
        out = os.path.join(work, "models", os.path.basename(path)[:-7])
        subprocess.run([sinterc, path, "-o", out], check=True)
        own = set(IDENTIFIER.findall(re.sub(r"#[^\n]*", "", open(path).read())))
        own -= KEYWORDS
        for cu in [f for f in os.listdir(out) if f.endswith(".cu")]:
            source = open(os.path.join(out, cu)).read()
            # Namespaces wrap functions: drop the wrappers.
            source = re.sub(r"(?m)^namespace[^\n{]*\{$|^\} // namespace.*$", "",
                            source)
            source = re.sub(r"//[^\n]*", "", source)
            for signature, body in functions(source):
                # The parameters' names: the last identifier of each.
                listed = signature[signature.rfind("(") + 1:]
                parameters = {IDENTIFIER.findall(p)[-1]
                              for p in listed.split(",")
                              if IDENTIFIER.findall(p)}
                if not any(is_own(p, own) for p in parameters
                           if not NAMER.match(p)):
                    continue
                for match in DECLARATION.finditer(signature + body):
                    if not is_own(match.group(1), own):
                        emitted.add(match.group(1))
    names = sorted(emitted)
    if not names:
        sys.exit("check_local_names: no declarations found")
    path = os.path.join(work, "names_probe.sinter")
    with open(path, "w") as f:
        f.write("model names_probe {\n")
        f.writelines(f"  input {name}: f32[4]\n" for name in names)
        f.write("  return " + " + ".join(names) + "\n}\n")
    subprocess.run([sinterc, path, "-o", os.path.join(work, "probe")], check=True)
    header = open(os.path.join(work, "probe", "names_probe.h")).read()
    forward = header[header.index("names_probe_forward("):]
    forward = forward[:forward.index(");")]
    kept = [n for n in names
            if re.search(r"const float \*" + re.escape(n) + r"(?!\w)", forward)]
    for name in kept:
        print(f"check_local_names: an input named '{name}' keeps its name, "
              "which generated code declares too")
    if kept:
        sys.exit(1)
    print(f"check_local_names: {len(names)} names of generated code checked, "
          "all renamed")


if __name__ == "__main__":
    main()
