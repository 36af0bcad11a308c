"""tjit's own float32 gemm for AVX-512 hosts, written in LLVM IR.

Measured on the development VM (znver4, 2 cores): the FMA peak is ~116 GF/s per core;
single-threaded OpenBLAS (SkylakeX kernels) reaches 90-103 GF/s on the MLP's shapes and
this kernel 105-111, with fewer passes over C (no separate pass to zero or scale it),
and it splits across the two cores without loss (OpenBLAS loses ~10%). ``blas.py``
calls it through the same shim as BLAS, one block of the product per call; float64,
products thinner than a tile and hosts without AVX-512F keep BLAS.

Structure (BLIS's): for each ``NC``-wide column panel of B and ``KC``-deep slice of K,
B's slice is packed into ``NR``-wide micro-panels (``KC x NR``, contiguous); for each
``MC``-tall row panel of A, A's slice is packed into ``MR``-tall micro-panels (``KC x
MR``); then a register-tile micro-kernel computes each ``MR x NR`` tile of C from one
A and one B micro-panel: ``MR * NR / 16`` vector accumulators (24 of the 32 zmm
registers), per k one broadcast of each A element and ``NR / 16`` vector loads of B.
The tile is combined with C once per ``KC`` slice: ``C = alpha * acc`` (first slice,
``beta = 0``: C is not read), ``C = beta * C + alpha * acc`` (first slice) or
``C += alpha * acc`` (a folded epilogue's ``beta * X`` is read from X by the first
slice: no copy of X into C first). Tiles at the right and bottom edges store only their
rows and (masked) columns. While the k loop runs, the micro-kernel prefetches B a few
rows ahead and the C (and X) lines of its tile.

A whose rows are contiguous in k is read in place (no packing); contiguous lanes are
packed row by row (one sequential stream per row of the source).

Packing reads any strided A and B (transposes included): lanes that are contiguous
are copied as vectors, k that is contiguous is transposed 16x16 (or 8x8) in registers
by a butterfly of shuffles; anything else (and the edges) element by element.

The caller gives each concurrent call its own workspace of ``WORKSPACE_FLOATS``
floats, 64-byte aligned.
"""

import math

from tjit.lower.llvm import target

#: Register tiles (rows MR x columns NR, 24 accumulators), by name. One: a 24 x 16 tile
#: for thin products (the MLP's 10 logits) was tried and lost to OpenBLAS (0.30 vs
#: 0.12 ms on 256x1024x10: 24 strided row streams of A), which keeps those.
TILES = {"wide": (6, 64)}
MR, NR = TILES["wide"]
PREFETCH = 8            # B rows (k steps) the micro-kernel prefetches ahead; 0: none
KC, MC, NC = 512, 264, 512   # MC: a multiple of MR
LANES = 16


def _packs(mr, nr):
    return math.ceil(MC / mr) * mr * KC, math.ceil(NC / nr) * nr * KC


#: Floats of workspace per concurrent call (A's and B's packed panels), any tile.
WORKSPACE_FLOATS = max(sum(_packs(mr, nr)) for mr, nr in TILES.values())


def entry(tile):
    """The symbol of the gemm entry point for ``tile`` (a key of TILES)."""
    mr, nr = TILES[tile]
    return f"tjit_sgemm_{mr}x{nr}"


def available():
    """True where the kernel is worth using: the host has AVX-512F (with 16 vector
    registers instead of 32 the tile would spill)."""
    return target.prefers_512()


def _butterfly(t):
    """Shuffle masks of a ``t x t`` transpose: per stage (distance d), the lanes of
    the new rows i and i + d taken from rows i and i + d concatenated."""
    stages, d = [], t // 2
    while d >= 1:
        lo = [x if x & d == 0 else t + x - d for x in range(t)]
        hi = [x + d if x & d == 0 else t + x for x in range(t)]
        stages.append((d, lo, hi))
        d //= 2
    return stages


def _mask(lanes):
    return "<" + ", ".join(f"i32 {x}" for x in lanes) + ">"


def _micro_kernel(rows, cols):
    """@ukr(ap, ars, aks, bp, src, c, ldc, kc, alpha, cscale, read_c, mr, nr): C tile
    (its first mr rows and nr columns of rows x cols at c, row stride ldc) = (read_c ?
    cscale * S : 0) + alpha * sum_k A[:, k] (x) bp[k], where S is the tile at src (C
    itself, or the array a folded epilogue adds: same layout), and A[r, k] is at ap +
    r*ars + k*aks (a packed panel: 1, rows; A itself: lda, 1)."""
    vec = f"<{LANES} x float>"
    nv = cols // LANES
    out = [f"define internal void @ukr_{rows}x{cols}(ptr noalias %ap, i64 %ars, i64 %aks, "
           f"ptr noalias %bp, ptr %src, ptr %c, i64 %ldc, i64 %kc, float %alpha, "
           f"float %cscale, i1 %read_c, "
           f"i64 %mr, i64 %nr) alwaysinline {{", "entry:"]
    for r in range(rows):
        out += [f"  %aro{r} = mul i64 %ars, {r}",
                f"  %arow{r} = getelementptr float, ptr %ap, i64 %aro{r}"]
    # The tile's lines of C (to write) and of the tile it reads (src) are fetched while
    # the k loop runs: for C read once per slice (an epilogue's X, a new output) the
    # misses would otherwise stall the store phase (measured: +10% on 1024x256x1024).
    for r in range(rows):
        out += [f"  %pfo{r} = mul i64 %ldc, {r}",
                f"  %pfc{r} = getelementptr float, ptr %c, i64 %pfo{r}",
                f"  %pfs{r} = getelementptr float, ptr %src, i64 %pfo{r}"]
        for v in range(nv):
            out += [f"  %pfcv{r}_{v} = getelementptr float, ptr %pfc{r}, i64 {LANES * v}",
                    f"  call void @llvm.prefetch.p0(ptr %pfcv{r}_{v}, i32 1, i32 3, i32 1)",
                    f"  %pfsv{r}_{v} = getelementptr float, ptr %pfs{r}, i64 {LANES * v}",
                    f"  call void @llvm.prefetch.p0(ptr %pfsv{r}_{v}, i32 0, i32 3, i32 1)"]
    out += ["  br label %loop", "loop:",
            "  %k = phi i64 [ 0, %entry ], [ %k1, %loop ]"]
    for r in range(rows):
        for v in range(nv):
            out.append(f"  %acc{r}_{v} = phi {vec} [ zeroinitializer, %entry ], "
                       f"[ %new{r}_{v}, %loop ]")
    out += [f"  %bo = mul i64 %k, {cols}", "  %ao = mul i64 %k, %aks",
            "  %brow = getelementptr float, ptr %bp, i64 %bo"]
    for v in range(nv):
        out += [f"  %bq{v} = getelementptr float, ptr %brow, i64 {LANES * v}",
                f"  %b{v} = load {vec}, ptr %bq{v}, align 64"]
        if PREFETCH:
            out += [f"  %pf{v} = getelementptr float, ptr %bq{v}, i64 {PREFETCH * cols}",
                    f"  call void @llvm.prefetch.p0(ptr %pf{v}, i32 0, i32 3, i32 1)"]
    for r in range(rows):
        out += [f"  %aq{r} = getelementptr float, ptr %arow{r}, i64 %ao",
                f"  %as{r} = load float, ptr %aq{r}, align 4",
                f"  %ai{r} = insertelement {vec} poison, float %as{r}, i64 0",
                f"  %ab{r} = shufflevector {vec} %ai{r}, {vec} poison, "
                f"<{LANES} x i32> zeroinitializer"]
        for v in range(nv):
            out.append(f"  %new{r}_{v} = call {vec} @llvm.fma.v16f32({vec} %ab{r}, "
                       f"{vec} %b{v}, {vec} %acc{r}_{v})")
    out += ["  %k1 = add i64 %k, 1", "  %more = icmp slt i64 %k1, %kc",
            "  br i1 %more, label %loop, label %store", "store:",
            f"  %al0 = insertelement {vec} poison, float %alpha, i64 0",
            f"  %al = shufflevector {vec} %al0, {vec} poison, <{LANES} x i32> zeroinitializer",
            f"  %cs0 = insertelement {vec} poison, float %cscale, i64 0",
            f"  %cs = shufflevector {vec} %cs0, {vec} poison, <{LANES} x i32> zeroinitializer",
            f"  %full_m = icmp eq i64 %mr, {rows}",
            f"  %full_n = icmp eq i64 %nr, {cols}",
            "  %full = and i1 %full_m, %full_n",
            "  br i1 %full, label %whole, label %edge",
            "whole:",
            "  br i1 %read_c, label %accumulate, label %overwrite"]
    out += _edge_store(vec, nv, rows)
    for label, read in (("accumulate", True), ("overwrite", False)):
        out.append(f"{label}:")
        for r in range(rows):
            out += [f"  %{label}_row{r} = mul i64 {r}, %ldc",
                    f"  %{label}_p{r} = getelementptr float, ptr %c, i64 %{label}_row{r}",
                    f"  %{label}_x{r} = getelementptr float, ptr %src, i64 %{label}_row{r}"]
            for v in range(nv):
                p = f"%{label}_q{r}_{v}"
                out += [f"  {p} = getelementptr float, ptr %{label}_p{r}, i64 {LANES * v}",
                        f"  %{label}_s{r}_{v} = fmul {vec} %al, %new{r}_{v}"]
                val = f"%{label}_s{r}_{v}"
                if read:
                    out += [f"  %{label}_xq{r}_{v} = getelementptr float, ptr %{label}_x{r}, "
                            f"i64 {LANES * v}",
                            f"  %{label}_o{r}_{v} = load {vec}, ptr %{label}_xq{r}_{v}, "
                            f"align 4",
                            f"  %{label}_m{r}_{v} = call {vec} @llvm.fma.v16f32("
                            f"{vec} %cs, {vec} %{label}_o{r}_{v}, {vec} {val})"]
                    val = f"%{label}_m{r}_{v}"
                out.append(f"  store {vec} {val}, ptr {p}, align 4")
        out.append("  ret void")
    out.append("}")
    return "\n".join(out)


def _edge_store(vec, nv, rows):
    """The store phase of a partial tile (mr < rows rows or nr < cols columns): rows past
    mr are skipped, columns past nr masked off."""
    mvec = f"<{LANES} x i1>"
    out = ["edge:", f"  %nr0 = insertelement <{LANES} x i64> poison, i64 %nr, i64 0",
           f"  %nrv = shufflevector <{LANES} x i64> %nr0, <{LANES} x i64> poison, "
           f"<{LANES} x i32> zeroinitializer"]
    for v in range(nv):
        lanes = ", ".join(f"i64 {LANES * v + x}" for x in range(LANES))
        out.append(f"  %em{v} = icmp slt <{LANES} x i64> <{lanes}>, %nrv")
    out.append("  br label %edge_row0")
    for r in range(rows):
        nxt = f"edge_row{r + 1}" if r + 1 < rows else "edge_done"
        out += [f"edge_row{r}:",
                f"  %ein{r} = icmp slt i64 {r}, %mr",
                f"  br i1 %ein{r}, label %edge_body{r}, label %edge_done",
                f"edge_body{r}:",
                f"  %erow{r} = mul i64 {r}, %ldc",
                f"  %ep{r} = getelementptr float, ptr %c, i64 %erow{r}",
                f"  %ex{r} = getelementptr float, ptr %src, i64 %erow{r}"]
        for v in range(nv):
            q = f"%eq{r}_{v}"
            out += [f"  {q} = getelementptr float, ptr %ep{r}, i64 {LANES * v}",
                    f"  %exq{r}_{v} = getelementptr float, ptr %ex{r}, i64 {LANES * v}",
                    f"  %es{r}_{v} = fmul {vec} %al, %new{r}_{v}",
                    f"  %eo{r}_{v} = call {vec} @llvm.masked.load.v16f32.p0(ptr %exq{r}_{v}, "
                    f"i32 4, {mvec} %em{v}, {vec} zeroinitializer)",
                    f"  %ef{r}_{v} = call {vec} @llvm.fma.v16f32({vec} %cs, {vec} %eo{r}_{v}, "
                    f"{vec} %es{r}_{v})",
                    f"  %ev{r}_{v} = select i1 %read_c, {vec} %ef{r}_{v}, {vec} %es{r}_{v}",
                    f"  call void @llvm.masked.store.v16f32.p0({vec} %ev{r}_{v}, ptr {q}, "
                    f"i32 4, {mvec} %em{v})"]
        out.append(f"  br label %{nxt}")
    out += ["edge_done:", "  ret void"]
    return out


def _pack(name, width, t):
    """@name(dst, src, ls, ks, valid, kc): dst[k * width + r] = src[r * ls + k * ks] for
    lanes r < valid (0 beyond), k < kc. Fast paths: contiguous lanes (ls == 1) copy a
    vector per k; contiguous k (ks == 1) transposes t x t blocks in registers."""
    wvec, tvec = f"<{width} x float>", f"<{t} x float>"
    blocks = width // t
    out = [f"define internal void @{name}(ptr noalias %dst, ptr noalias %src, i64 %ls, "
           f"i64 %ks, i64 %valid, i64 %kc) {{",
           "entry:",
           f"  %full = icmp eq i64 %valid, {width}",
           "  %lanes1 = icmp eq i64 %ls, 1",
           "  %k1 = icmp eq i64 %ks, 1",
           "  %tr = and i1 %full, %k1",
           "  br i1 %lanes1, label %copy_start, label %check_tr",
           # contiguous lanes: one vector per k
           "copy_start:",
           f"  %vl0 = insertelement <{width} x i64> poison, i64 %valid, i64 0",
           f"  %vl = shufflevector <{width} x i64> %vl0, <{width} x i64> poison, "
           f"<{width} x i32> zeroinitializer",
           f"  %cmask = icmp slt <{width} x i64> <" +
           ", ".join(f"i64 {x}" for x in range(width)) + ">, %vl",
           "  br label %copy_loop",
           "copy_loop:",
           "  %ck = phi i64 [ 0, %copy_start ], [ %ck1, %copy_loop ]",
           "  %cso = mul i64 %ck, %ks",
           "  %csp = getelementptr float, ptr %src, i64 %cso",
           f"  %cv = call {wvec} @llvm.masked.load.v{width}f32.p0(ptr %csp, i32 4, "
           f"<{width} x i1> %cmask, {wvec} zeroinitializer)",
           f"  %cdo = mul i64 %ck, {width}",
           "  %cdp = getelementptr float, ptr %dst, i64 %cdo",
           f"  store {wvec} %cv, ptr %cdp, align 4",
           "  %ck1 = add i64 %ck, 1",
           "  %cmore = icmp slt i64 %ck1, %kc",
           "  br i1 %cmore, label %copy_loop, label %done",
           "check_tr:",
           f"  %kt = and i64 %kc, -{t}",
           "  %any_t = icmp sgt i64 %kt, 0",
           "  %do_tr = and i1 %tr, %any_t",
           "  br i1 %do_tr, label %tr_block, label %scalar_entry",
           # contiguous k: t x t register transposes, one block of t lanes at a time
           # (t sequential streams: prefetchers follow them)
           ]
    # one loop over the blocks around one transpose (not a copy of it per block: the
    # 64-lane B panel's four copies were half of the module's IR and LLVM time)
    out += ["tr_block:",
            "  %tb = phi i64 [ 0, %check_tr ], [ %tb1, %tr_next ]",
            f"  %tbl = mul i64 %tb, {t}",
            "  br label %tr_loop",
            "tr_loop:",
            "  %tk = phi i64 [ 0, %tr_block ], [ %tk1, %tr_loop ]"]
    rows = []
    for j in range(t):
        out += [f"  %lane{j} = add i64 %tbl, {j}",
                f"  %lo{j} = mul i64 %lane{j}, %ls",
                f"  %li{j} = add i64 %lo{j}, %tk",
                f"  %lp{j} = getelementptr float, ptr %src, i64 %li{j}",
                f"  %r0_{j} = load {tvec}, ptr %lp{j}, align 4"]
        rows.append(f"%r0_{j}")
    for st, (d, lo, hi) in enumerate(_butterfly(t), start=1):
        new = list(rows)
        for i in range(t):
            if i & d:
                continue
            x, y = rows[i], rows[i + d]
            out += [f"  %r{st}_{i} = shufflevector {tvec} {x}, {tvec} {y}, "
                    f"<{t} x i32> {_mask(lo)}",
                    f"  %r{st}_{i + d} = shufflevector {tvec} {x}, {tvec} {y}, "
                    f"<{t} x i32> {_mask(hi)}"]
            new[i], new[i + d] = f"%r{st}_{i}", f"%r{st}_{i + d}"
        rows = new
    for j in range(t):   # row j now holds k = tk + j of lanes tbl .. tbl + t
        out += [f"  %tsk{j} = add i64 %tk, {j}",
                f"  %tso{j} = mul i64 %tsk{j}, {width}",
                f"  %tsb{j} = add i64 %tso{j}, %tbl",
                f"  %tsp{j} = getelementptr float, ptr %dst, i64 %tsb{j}",
                f"  store {tvec} {rows[j]}, ptr %tsp{j}, align 4"]
    out += [f"  %tk1 = add i64 %tk, {t}",
            "  %tmore = icmp slt i64 %tk1, %kt",
            "  br i1 %tmore, label %tr_loop, label %tr_next",
            "tr_next:",
            "  %tb1 = add i64 %tb, 1",
            f"  %bmore = icmp slt i64 %tb1, {blocks}",
            "  br i1 %bmore, label %tr_block, label %scalar_entry"]
    out += [
            # everything else, and the k left over by the transposes
            "scalar_entry:",
            "  %k0 = phi i64 [ 0, %check_tr ], [ %kt, %tr_next ]",
            "  %any = icmp slt i64 %k0, %kc",
            "  br i1 %any, label %sk_loop, label %done",
            "sk_loop:",
            "  %sk = phi i64 [ %k0, %scalar_entry ], [ %sk1, %sr_done ]",
            "  %sko = mul i64 %sk, %ks",
            f"  %sdo = mul i64 %sk, {width}",
            "  br label %sr_loop",
            "sr_loop:",
            "  %r = phi i64 [ 0, %sk_loop ], [ %r1, %sr_store ]",
            "  %in = icmp slt i64 %r, %valid",
            "  br i1 %in, label %sr_load, label %sr_store",
            "sr_load:",
            "  %ro = mul i64 %r, %ls",
            "  %rk = add i64 %ro, %sko",
            "  %rp = getelementptr float, ptr %src, i64 %rk",
            "  %rv = load float, ptr %rp, align 4",
            "  br label %sr_store",
            "sr_store:",
            "  %val = phi float [ %rv, %sr_load ], [ 0.0, %sr_loop ]",
            "  %di = add i64 %sdo, %r",
            "  %dp = getelementptr float, ptr %dst, i64 %di",
            "  store float %val, ptr %dp, align 4",
            "  %r1 = add i64 %r, 1",
            f"  %rmore = icmp slt i64 %r1, {width}",
            "  br i1 %rmore, label %sr_loop, label %sr_done",
            "sr_done:",
            "  %sk1 = add i64 %sk, 1",
            "  %skmore = icmp slt i64 %sk1, %kc",
            "  br i1 %skmore, label %sk_loop, label %done",
            "done:",
            "  ret void",
            "}"]
    return "\n".join(out)


def _pack_rows(name, width, fallback):
    """@name(dst, src, rs, n, kc): kc rows of n contiguous floats (row stride rs) into
    width-wide micro-panels, reading each row front to back: one sequential stream,
    where walking one panel at a time would jump a row stride per element and defeat
    the hardware prefetcher. A partial last panel goes to ``fallback`` (a ``_pack``)."""
    return f"""
define internal void @{name}(ptr noalias %dst, ptr noalias %src, i64 %rs, i64 %n, i64 %kc) {{
entry:
  %np = udiv i64 %n, {width}
  %any = icmp sgt i64 %np, 0
  %panel = mul i64 %kc, {width}
  br i1 %any, label %k_loop, label %tail
k_loop:
  %k = phi i64 [ 0, %entry ], [ %k1, %p_done ]
  %so = mul i64 %k, %rs
  %srow = getelementptr float, ptr %src, i64 %so
  %dko = mul i64 %k, {width}
  %drow = getelementptr float, ptr %dst, i64 %dko
  br label %p_loop
p_loop:
  %p = phi i64 [ 0, %k_loop ], [ %p1, %p_loop ]
  %sc = mul i64 %p, {width}
  %sp = getelementptr float, ptr %srow, i64 %sc
  %v = load <{width} x float>, ptr %sp, align 4
  %dpo = mul i64 %p, %panel
  %dp = getelementptr float, ptr %drow, i64 %dpo
  store <{width} x float> %v, ptr %dp, align 4
  %p1 = add i64 %p, 1
  %pmore = icmp slt i64 %p1, %np
  br i1 %pmore, label %p_loop, label %p_done
p_done:
  %k1 = add i64 %k, 1
  %kmore = icmp slt i64 %k1, %kc
  br i1 %kmore, label %k_loop, label %tail
tail:
  %whole = mul i64 %np, {width}
  %rest = sub i64 %n, %whole
  %has_rest = icmp sgt i64 %rest, 0
  br i1 %has_rest, label %partial, label %done
partial:
  %tdo = mul i64 %np, %panel
  %tdst = getelementptr float, ptr %dst, i64 %tdo
  %tsrc = getelementptr float, ptr %src, i64 %whole
  call void @{fallback}(ptr %tdst, ptr %tsrc, i64 1, i64 %rs, i64 %rest, i64 %kc)
  br label %done
done:
  ret void
}}
"""


_DRIVER = r"""
; C[m x n] (row stride ldc) = alpha * A @ B + beta * X (beta 0: X is not read), for
; A[i, k] at a + i*ars + k*acs and B[k, j] at b + k*brs + j*bcs; X has C's layout at x
; (x == c: BLAS's C = alpha * A @ B + beta * C); ws: the workspace.
define void @tjit_sgemm(ptr noalias %a, ptr noalias %b, ptr %x, ptr %c, ptr noalias %ws,
                        i64 %m, i64 %n, i64 %k, i64 %ars, i64 %acs, i64 %brs, i64 %bcs,
                        i64 %ldc, float %alpha, float %beta) {
entry:
  %bpack = getelementptr float, ptr %ws, i64 {A_PACK}
  %beta_zero = fcmp oeq float %beta, 0.0
  ; K in equal slices of at most KC (no thin last slice: each slice is a pass over C)
  %k_up = add i64 %k, {KC_1}
  %slices = udiv i64 %k_up, {KC}
  %k_up2 = add i64 %k, %slices
  %k_up3 = sub i64 %k_up2, 1
  %kstep = udiv i64 %k_up3, %slices
  br label %jc_loop
jc_loop:
  %jc = phi i64 [ 0, %entry ], [ %jc1, %pc_done ]
  %nc_left = sub i64 %n, %jc
  %nc = call i64 @llvm.smin.i64(i64 %nc_left, i64 {NC})
  %bj = mul i64 %jc, %bcs
  br label %pc_loop
pc_loop:
  %pc = phi i64 [ 0, %jc_loop ], [ %pc1, %ic_done ]
  %kc_left = sub i64 %k, %pc
  %kc = call i64 @llvm.smin.i64(i64 %kc_left, i64 %kstep)
  %first = icmp eq i64 %pc, 0
  %cscale = select i1 %first, float %beta, float 1.0
  %skip_c = and i1 %first, %beta_zero
  %read_c = xor i1 %skip_c, true
  %bk = mul i64 %pc, %brs
  %bsrc0 = getelementptr float, ptr %b, i64 %bk
  %bsrc = getelementptr float, ptr %bsrc0, i64 %bj
  %ak = mul i64 %pc, %acs
  %direct = icmp eq i64 %acs, 1       ; A's rows contiguous in k: read it in place
  %a_rows = icmp eq i64 %ars, 1       ; A's columns contiguous: pack row by row
  %b_rows = icmp eq i64 %bcs, 1
  br i1 %b_rows, label %pb_rows, label %pb_loop
pb_rows:                               ; B's rows contiguous: pack row by row
  call void @pack_b_rows(ptr %bpack, ptr %bsrc, i64 %brs, i64 %nc, i64 %kc)
  br label %ic_loop
pb_loop:                               ; pack B's slice into NR-wide micro-panels
{PANELS_B}
ic_loop:
  %ic = phi i64 [ 0, %pb_loop ], [ 0, %pb_rows ], [ %ic1, %jr_done ]
  %mc_left = sub i64 %m, %ic
  %mc = call i64 @llvm.smin.i64(i64 %mc_left, i64 {MC})
  %ai = mul i64 %ic, %ars
  %asrc0 = getelementptr float, ptr %a, i64 %ai
  %asrc = getelementptr float, ptr %asrc0, i64 %ak
  ; in place, only a partial last micro-panel is packed (zero rows past m)
  %mc_part = urem i64 %mc, {MR}
  %mc_whole = sub i64 %mc, %mc_part
  %qi0 = select i1 %direct, i64 %mc_whole, i64 0
  %pa_any = icmp slt i64 %qi0, %mc
  %pa_rows = and i1 %a_rows, %pa_any
  br i1 %pa_rows, label %pa_by_rows, label %pa_check
pa_by_rows:
  call void @pack_a_rows(ptr %ws, ptr %asrc, i64 %acs, i64 %mc, i64 %kc)
  br label %jr_loop
pa_check:
  br i1 %pa_any, label %pa_loop, label %jr_loop
pa_loop:                               ; pack A's block into MR-tall micro-panels
{PANELS_A}
jr_loop:
  %jr = phi i64 [ 0, %pa_loop ], [ 0, %pa_check ], [ 0, %pa_by_rows ], [ %jr1, %ir_done ]
  %jro = mul i64 %jr, %kc
  %bpanel = getelementptr float, ptr %bpack, i64 %jro
  %nr_left = sub i64 %nc, %jr
  %nr = call i64 @llvm.smin.i64(i64 %nr_left, i64 {NR})
  %ccol = add i64 %jc, %jr
  br label %ir_loop
ir_loop:
  %ir = phi i64 [ 0, %jr_loop ], [ %ir1, %ir_next ]
  %iro = mul i64 %ir, %kc
  %apanel = getelementptr float, ptr %ws, i64 %iro
  %mr_left = sub i64 %mc, %ir
  %mr = call i64 @llvm.smin.i64(i64 %mr_left, i64 {MR})
  %full_m = icmp eq i64 %mr, {MR}
  %crow0 = add i64 %ic, %ir
  %crow = mul i64 %crow0, %ldc
  %cidx = add i64 %crow, %ccol
  %ctile = getelementptr float, ptr %c, i64 %cidx
  %xtile = getelementptr float, ptr %x, i64 %cidx
  %stile = select i1 %first, ptr %xtile, ptr %ctile    ; the first slice reads X
  %in_place = and i1 %direct, %full_m
  %airo = mul i64 %ir, %ars
  %aplace = getelementptr float, ptr %asrc, i64 %airo
  %a_tile = select i1 %in_place, ptr %aplace, ptr %apanel
  %a_rs = select i1 %in_place, i64 %ars, i64 1
  %a_ks = select i1 %in_place, i64 1, i64 {MR}
  call void @ukr(ptr %a_tile, i64 %a_rs, i64 %a_ks, ptr %bpanel, ptr %stile, ptr %ctile,
                 i64 %ldc,
                 i64 %kc, float %alpha, float %cscale, i1 %read_c, i64 %mr, i64 %nr)
  br label %ir_next
ir_next:
  %ir1 = add i64 %ir, {MR}
  %irmore = icmp slt i64 %ir1, %mc
  br i1 %irmore, label %ir_loop, label %ir_done
ir_done:
  %jr1 = add i64 %jr, {NR}
  %jrmore = icmp slt i64 %jr1, %nc
  br i1 %jrmore, label %jr_loop, label %jr_done
jr_done:
  %ic1 = add i64 %ic, {MC}
  %icmore = icmp slt i64 %ic1, %m
  br i1 %icmore, label %ic_loop, label %ic_done
ic_done:
  %pc1 = add i64 %pc, %kstep
  %pcmore = icmp slt i64 %pc1, %k
  br i1 %pcmore, label %pc_loop, label %pc_done
pc_done:
  %jc1 = add i64 %jc, {NC}
  %jcmore = icmp slt i64 %jc1, %n
  br i1 %jcmore, label %jc_loop, label %done
done:
  ret void
}
"""


def _tile_ir(mr, nr):
    """The entry point ``@tjit_sgemm_{mr}x{nr}`` and its micro-kernel and packing."""
    a_pack, b_pack = _packs(mr, nr)
    driver = _DRIVER.replace("{PANELS_B}", _panels(
        "pj", "pb_loop", "0, %pc_loop", "%nc", nr, "%bcs", "%brs", "%bsrc", "%bpack",
        "pack_b", "ic_loop")).replace("{PANELS_A}", _panels(
            "qi", "pa_loop", "%qi0, %pa_check", "%mc", mr, "%ars", "%acs", "%asrc", "%ws",
            "pack_a", "jr_loop"))
    for fn in ("ukr", "pack_a_rows", "pack_b_rows", "pack_a", "pack_b", "tjit_sgemm"):
        driver = driver.replace(f"@{fn}(", f"@{fn}_{mr}x{nr}(")
    for key, val in (("A_PACK", a_pack), ("B_PACK", b_pack), ("MR", mr), ("NR", nr),
                     ("KC_1", KC - 1), ("KC", KC), ("MC", MC), ("NC", NC)):
        driver = driver.replace("{" + key + "}", str(val))
    name = f"{mr}x{nr}"
    return "\n".join([
        _micro_kernel(mr, nr),
        _pack(f"pack_a_{name}", mr, math.gcd(mr, 8)),
        _pack(f"pack_b_{name}", nr, math.gcd(nr, LANES)),
        _pack_rows(f"pack_a_rows_{name}", mr, f"pack_a_{name}"),
        _pack_rows(f"pack_b_rows_{name}", nr, f"pack_b_{name}"),
        driver])


def _panels(v, label, start, extent, width, lane_stride, k_stride, src, dst, fn, done):
    """The driver's loop packing one operand's micro-panels one at a time: panel p
    (``width`` lanes from lane ``v``) from ``src`` to ``dst`` + v * kc."""
    return f"""  %{v} = phi i64 [ {start} ], [ %{v}1, %{label} ]
  %{v}_left = sub i64 {extent}, %{v}
  %{v}valid = call i64 @llvm.smin.i64(i64 %{v}_left, i64 {width})
  %{v}so = mul i64 %{v}, {lane_stride}
  %{v}src = getelementptr float, ptr {src}, i64 %{v}so
  %{v}do = mul i64 %{v}, %kc
  %{v}dst = getelementptr float, ptr {dst}, i64 %{v}do
  call void @{fn}(ptr %{v}dst, ptr %{v}src, i64 {lane_stride}, i64 {k_stride}, i64 %{v}valid,
                  i64 %kc)
  %{v}1 = add i64 %{v}, {width}
  %{v}more = icmp slt i64 %{v}1, {extent}
  br i1 %{v}more, label %{label}, label %{done}"""


def kernel_ir(declare_smin=True):
    """The LLVM IR of every tile's entry point (``entry(tile)``) and their helpers (no
    external symbols); ``declare_smin=False`` for a module that declares
    ``@llvm.smin.i64`` already."""
    widths = sorted({LANES} | {w for tile in TILES.values() for w in tile})
    return "\n".join([
        "declare <16 x float> @llvm.fma.v16f32(<16 x float>, <16 x float>, <16 x float>)",
        "declare void @llvm.prefetch.p0(ptr, i32, i32, i32)",
        "declare void @llvm.masked.store.v16f32.p0(<16 x float>, ptr, i32, <16 x i1>)",
        *[f"declare <{w} x float> @llvm.masked.load.v{w}f32.p0(ptr, i32, <{w} x i1>, "
          f"<{w} x float>)" for w in widths],
        "declare i64 @llvm.smin.i64(i64, i64)" if declare_smin else "",
        *[_tile_ir(mr, nr) for mr, nr in TILES.values()]])
