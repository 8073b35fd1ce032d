#!/usr/bin/env python3
"""Variant E of cluster_variants.py: a persistent grid (B, or B2 with a
third argument B2) whose blocks copy the next row's slice with cp.async
into a second shared buffer while they work on the current one (double
the shared memory a block). An experiment: see cluster_variants.py.

    cluster_double_buffer.py SRC DST [B|B2]"""
import re, sys, os, glob, shutil, subprocess
src, dst = sys.argv[1], sys.argv[2]
subprocess.run([sys.executable, os.path.join(os.path.dirname(__file__), "cluster_variants.py"), src, dst, sys.argv[3] if len(sys.argv) > 3 else "B"], check=True, capture_output=True)
for cu in glob.glob(os.path.join(dst, "*", "*.cu")):
    t = open(cu).read()
    if "launchClustered" not in t: continue
    c = int(re.search(r"blockIdx.x % (\d+)\) \*", t).group(1))
    rows = re.search(r"r < (\d+); r \+= static_cast<int64_t>\(gridDim.x\)", t).group(1)
    length = re.search(r"const int64_t i0 = r \* (\d+);", t).group(1)
    S = re.search(r"float \*const shared = sharedMemory \+ threadIdx.x / kThreads \* \((\d+)\);", t).group(1)
    bufs = re.findall(r"float \*const (\w+)_row = shared \+ 0;", t)
    assert len(bufs) == 1, cu
    b = bufs[0]
    span = "end - begin" if "const int64_t end = " in t else re.search(r"blockIdx.x % \d+\) \* (\d+);", t).group(1)
    vec = "if (vec) {\n        #pragma unroll 4\n        for (int64_t q = tid;" in t
    t = t.replace(f"float *const {b}_row = shared + 0;", f"float *{b}_row = shared;")
    def issue(row, buf, ind):
        s = []
        if vec:
            s.append(f"{ind}if (vec) {{")
            s.append(f"{ind}  for (int64_t q = tid; q < ({span}) / 4; q += kThreads) __pipeline_memcpy_async({buf} + 4 * q, {b} + ({row}) * {length} + begin + 4 * q, 16);")
            s.append(f"{ind}}} else {{")
            s.append(f"{ind}  for (int64_t j = tid; j < {span}; j += kThreads) __pipeline_memcpy_async({buf} + j, {b} + ({row}) * {length} + begin + j, 4);")
            s.append(f"{ind}}}")
        else:
            s.append(f"{ind}for (int64_t j = tid; j < {span}; j += kThreads) __pipeline_memcpy_async({buf} + j, {b} + ({row}) * {length} + begin + j, 4);")
        return "\n".join(s)
    loop = re.search(r"  for \(int64_t r = static_cast<int64_t>\(blockIdx.x\) / \d+; r < \d+;[^\n]*\n", t)
    first = f"  if (static_cast<int64_t>(blockIdx.x) / {c} < {rows}) {{\n    const int64_t r = static_cast<int64_t>(blockIdx.x) / {c};\n" + issue("r", "shared", "    ") + "\n  }\n  __pipeline_commit();\n"
    t = t[:loop.start()] + first + t[loop.start():]
    i = t.index("{ // Copy the rows read more than once.")
    start = t.rindex("\n", 0, i) + 1
    anchor = "      teamSync<kThreads>();\n    }\n"
    j = t.index(anchor, i) + len(anchor)
    body = (f"    {{ // Wait for this row's slice; copy the next row's into the other buffer.\n"
            f"      const int64_t rn = r + static_cast<int64_t>(gridDim.x) / {c};\n"
            f"      float *const next = {b}_row == shared ? shared + {S} : shared;\n"
            f"      if (rn < {rows}) {{\n" + issue("rn", "next", "        ") + "\n      }\n"
            f"      __pipeline_commit();\n      __pipeline_wait_prior(1);\n      teamSync<kThreads>();\n    }}\n")
    t = t[:start] + body + t[j:]
    t = t.replace("teamSync<kThreads>(); // The next row reuses shared memory.",
                  f"teamSync<kThreads>(); // The next row reuses shared memory.\n    {b}_row = {b}_row == shared ? shared + {S} : shared;")
    t = re.sub(r"(const size_t sharedBytes = static_cast<size_t>\(kRowsPerBlock\) \* \(\d+\)) \* sizeof\(float\);", r"\1 * 2 * sizeof(float);", t)
    t = t.replace('#include "', '#include <cuda_pipeline.h>\n#include "', 1)
    open(cu, "w").write(t)
    print("variant E", cu)
