#!/usr/bin/env python3
"""Hand-made variants of the cluster row kernels of a prepared reduction
sweep folder, for A/B runs on a GPU: regex edits of generated code, an
experiment, not a product path. Results and commands:
bench/results/2026-12-08-h100-cluster-variants.md.

    cluster_variants.py SRC DST KIND

copies SRC (a `reduction_sweep.py prepare` folder) to DST and edits every
cluster kernel there:
  B   a persistent grid: resident blocks (getResidentBlocks) / cluster;
  B2  a persistent grid of cudaOccupancyMaxActiveClusters clusters;
  C   B, plus an L2 prefetch (prefetch.global.L2) of the block's next row
      slice right after its current slice is in shared memory;
  C2  B2 with C's prefetch;
  D   C with prefetch.global.L2::evict_last;
  F   the original launch, each clusterReduce replaced by its block's
      blockReduce (wrong results: what the cluster barriers cost).
(cluster_double_buffer.py makes E and E2; cluster_floor.py makes G.)"""
import re, sys, os, glob, shutil
src, dst, kind = sys.argv[1], sys.argv[2], sys.argv[3]
if os.path.exists(dst): shutil.rmtree(dst)
shutil.copytree(src, dst)
for cu in glob.glob(os.path.join(dst, "*", "*.cu")):
    t = open(cu).read()
    m = re.search(r"sinter::launchClustered\(\s*(\w+)<kThreads>,", t)
    if not m:
        print("skip", cu); continue
    name = m.group(1)
    c = int(re.search(r"blockIdx.x % (\d+)\) \*", t).group(1))
    old = f"const int64_t clusters = rows < INT32_MAX / {c} ? rows : INT32_MAX / {c};"
    assert old in t
    if kind.endswith("2"):
        new = (f"cudaLaunchConfig_t probe = {{}};\n  probe.gridDim = dim3({c} * 1024);\n  probe.blockDim = dim3(kRowsPerBlock * kThreads);\n"
               f"  probe.dynamicSmemBytes = sharedBytes;\n  cudaLaunchAttribute probeCluster = {{}};\n"
               f"  probeCluster.id = cudaLaunchAttributeClusterDimension;\n  probeCluster.val.clusterDim.x = {c};\n  probeCluster.val.clusterDim.y = 1;\n  probeCluster.val.clusterDim.z = 1;\n"
               f"  probe.attrs = &probeCluster;\n  probe.numAttrs = 1;\n  int active = 0;\n"
               f"  SINTER_RT_TRY(sinter_rt_check_cuda(ctx, cudaOccupancyMaxActiveClusters(&active, {name}<kThreads>, &probe), \"occupancy\"));\n"
               f"  const int64_t clusters = rows < active ? rows : (active > 0 ? active : 1);")
    else:
      new = (f"int resident = 0;\n  SINTER_RT_TRY(sinter_rt_check_cuda(ctx, sinter::getResidentBlocks({name}<kThreads>, "
           f"kRowsPerBlock * kThreads, sharedBytes, 64, &resident), \"occupancy\"));\n"
           f"  const int64_t clusters = rows < resident / {c} ? rows : (resident / {c} > 0 ? resident / {c} : 1);")
    if kind != "F":
        t = t.replace(old, new)
    if kind == "F":
        t = re.sub(r"dev::clusterReduce<kThreads, \d+, (dev::\w+)>\(([^;]*), exchange\)\)", r"dev::blockReduce<kThreads, \1>(\2))", t)
        t = re.sub(r"dev::clusterReduce<kThreads, \d+, (dev::\w+)>\(([^;]*), exchange\);", r"dev::blockReduce<kThreads, \1>(\2);", t)
    if kind in ("C", "D", "C2"):
        rows = re.search(r"r < (\d+); r \+= static_cast<int64_t>\(gridDim.x\)", t).group(1)
        length = re.search(r"const int64_t i0 = r \* (\d+);", t).group(1)
        bufs = re.findall(r"float \*const (\w+)_row = shared", t)
        span = "end - begin" if "const int64_t end = " in t else re.search(r"blockIdx.x % \d+\) \* (\d+);", t).group(1)
        hint = "prefetch.global.L2::evict_last" if kind == "D" else "prefetch.global.L2"
        pre = ["    { // Prefetch the next row's slice into L2.",
               f"      const int64_t rn = r + static_cast<int64_t>(gridDim.x) / {c};",
               f"      if (rn < {rows}) {{"]
        for b in bufs:
            pre.append(f"        for (int64_t j = 32 * tid; j < {span}; j += 32 * kThreads) "
                       f"asm volatile(\"{hint} [%0];\" :: \"l\"({b} + rn * {length} + begin + j));")
        pre += ["      }", "    }"]
        anchor = "      teamSync<kThreads>();\n    }\n"
        i = t.index("Copy the rows read more than once.")
        j = t.index(anchor, i) + len(anchor)
        t = t[:j] + "\n".join(pre) + "\n" + t[j:]
    open(cu, "w").write(t)
    print("variant", kind, cu)
