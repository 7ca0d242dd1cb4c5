// Exported entry point of the Hopper k-grouped weight-gradient GEMM (sm90/kgrouped_wgrad.cuh).
#include <cstdint>
#include "../common/driver.cuh"
#include "../common/error.cuh"
#include "../sm90/kgrouped_wgrad.cuh"

namespace {

using pk::sm90::kgrouped::Config;
using pk::sm90::kgrouped::Params;
using pk::sm90::kgrouped::Pipe;
using pk::sm90::kgrouped::kgrouped_wgrad_kernel;

// Pipeline variants (`variant` argument; 0 = the default for the out dtype). Ids are kept from the
// tuning history (notes/sm90_kgrouped.md; 1-7, 9, 11 and 14 were measured slower and removed):
//   8  lean producer loop, row indices prefetched into L1 per tile: 64-row chunks, 4 stages,
//      wgmma.wait_group 1 (release chunk i-1); direct stores.
//  10  8 with the staged bf16 epilogue (tile through shared memory, bulk-copy stores overlapping
//      the next tile's MMAs): 3 stages at 128 x 256, 4 at 128 x 128. fp32 outs store directly.
//  12  10 with fp32 outs staged as well: two column halves through the same buffer, and
//      accumulate as bulk fp32 adds (cp.reduce.async.bulk) instead of load-add-store.
//  13  12 with wait_group 0 (release the stage just used): with 3 stages and one chunk's wgmma
//      in flight the consumers hold 2 of them and the producer runs only one chunk ahead.
// (15, session 5: 8's 4 stages with bf16 rows staged in the stages of a tile's last two chunks,
// handed back after the bulk reads: 1-6 % slower than 13 at both shapes, results/session5/run1;
// removed.)
//  16  13 with the tiles leaving through TMA tensor stores (one issuing thread a warpgroup: bf16 4
//      boxes of 64 x 64, fp32 two halves of 4 boxes of 32 x 64, accumulate as TMA reduce-adds)
//      instead of one bulk copy per row.
// (17, 18, session 6: 16 with a 16 KiB staging buffer per consumer warpgroup, tiles leaving in column
// passes, and a fourth 64-row stage with wait_group 1 / 0: 1-6 % slower for bf16 outs, and behind 19
// for fp32 accumulate, results/session6/run1; removed. Re-added unchanged in session 16 and measured
// against 19 again: dW1 / dW2 +2..+13 % alone in synchronised calls, +0.5..+4 % back to back, the layer
// within the A/B's noise, results/session16/run1, run2; removed again.)
//  19  16 with a 16 KiB staging buffer per consumer warpgroup (tiles leave in column passes: bf16
//      128, fp32 64 columns) and 128-row chunks: 2 stages of 96 KiB, wait_group 0 (half the
//      per-chunk handshakes and drains of 16).
//  21  19 with a bf16 tile's last column pass held in registers (packed) and written out while the next tile's
//      first chunk of wgmma runs (setmaxnreg 72 / 216 / 216); fp32 outs as 19.
// (22 again, session 21 run 1: 21 with the two consumer warpgroups staggered at a tile's end, the first holding both of its
// passes in 64 packed registers: 1-4 % slower than 21, results/session21/run1; removed.)
// (25, session 21 run 2: 21 multiplying only the 16-row steps of a group's last chunk that hold rows; ptxas
// serialized every wgmma of the kernel (C7520, one arrive and wait each, main path included): 11-19 % slower,
// results/session21/run2; removed. The build now fails on C7520, cmake/ptxas_guard.py.)
// (26, session 21 run 4: the same skip with every chunk's k-steps in a runtime loop of one wgmma batch a pair, which
// ptxas keeps batched: the MMA-only form -2.5..-3.5 % at 30B, even at 235B; the whole kernel even to +3 %: the
// last chunk's zero rows are not what bounds it; removed.)
// (22, session 6: 16 rebuilding its wgmma descriptors every chunk, as every pipeline did before; the
// A/B of the loop with precomputed descriptors, 7-13 % slower, results/session6/run6; removed.)
// (23, session 6: 16 with the gather's earlier 64-bit row arithmetic, the A/B of the 32-bit form: 1-5 %
// slower, results/session6/run11; removed.)
// Default: 8 (H200, 2026-11-30, 30B shapes: dW2 0.863 ms vs 1.189 for v5, dW1 1.720 vs 2.292; the
// fastest of the nine and exact on every test case; results/kgrouped_variants.md).
constexpr int kDefaultVariant = 8;
// bf16 outs (the parameter-dtype gradients of the MoE backward): 10, the staged epilogue. H200,
// 2026-11-30, interleaved, bf16 out, 10 vs 8: 30B dW2 0.874 vs 0.984 ms, dW1 1.702 vs 1.904; 235B
// dW2 3.40 vs 4.21, dW1 7.05 vs 7.55 (results/session3/run2_interleaved_wgrad.log). With an fp32 out it
// only loses a stage (0.964 vs 0.942 ms), so fp32 keeps 8.
// Then 13 (the same with wait_group 0, so the producer runs two chunks ahead instead of one) vs 10,
// interleaved: 30B dW2 0.929 vs 0.939, dW1 1.762 vs 1.822; 235B dW2 3.43 vs 3.88, dW1 6.96 vs 6.99;
// accumulate even (results/session3/run10_interleaved_wait0.log).
// Session 5: 16, 13 with the tile stored by TMA (interleaved, 7 rounds, results/session5/run7: 30B dW2
// 0.813 vs 0.887 ms, dW1 1.612 vs 1.748; 235B dW2 3.27 vs 3.44, dW1 6.34 vs 6.99).
// Session 7: 19 (128-row chunks: half the per-chunk handshakes, whose fixed cost run 1 measured) for bf16
// outs too. Interleaved with each round's order rotated, 7 rounds (results/session7/run2/interleaved.log),
// 19 vs 16: 30B dW2 0.855 vs 0.894 ms, dW1 1.612 vs 1.690; 235B dW2 3.190 vs 3.285-3.465, dW1 6.374 vs
// 6.446-6.606 (16 twice in each round: as the default and by its id). Session 6's fixed-order run 1 had
// 19 1-4 % behind 16, before the chunk-loop and gather changes that followed it.
// Session 20: 21, 19 with a bf16 tile's second column pass held in registers and written out during the next tile's
// first chunk. In one process, 9 rounds (results/session20/run9/wgrad.log), 21 vs 19: 30B dW1 1.587-1.619 vs 1.654 ms,
// dW2 0.788-0.797 vs 0.849; 235B dW1 6.244-6.367 vs 6.500, dW2 3.049 vs 3.265. (20, the second pass stored straight
// from the registers, was 7-10 % slower than 19 in run 8: removed.)
//  28  (session 38) 128 x 384 tiles where the cluster-shared identity side's width is a multiple of 384 (dW2 with B
//      shared, the swapped dW1), else 21: 64-row chunks in 3 stages (the 192 accumulators a thread leave room for no
//      more), a bf16 tile in 64-column passes and a non-transposed fp32 one in 32-column passes, alternating between
//      two 8 KiB halves of the staging buffer (no register room to defer one; a transposed fp32 tile: 19's 64-column
//      passes), setmaxnreg 40 / 232 / 232. For the bytes each SM receives a FLOP: -11 % against 128 x 256, the
//      gathered ones -33 %.
// Session 38 (H100, one process, 9 rounds, results/session38/run1), 28 vs 21 (bf16 out): 235B dW1 5.668 vs 6.224 ms,
// dW2 2.948 vs 3.049; 30B dW1 1.495 vs 1.597, dW2 0.770 vs 0.788; the layer fwd+bwd -0.7 / -0.8 % (bench: -1.1 / -1.0
// %, back to back -2.2 / -1.2 %). Its loads alone -18 %, its MMAs alone -4 / -12 %; the alternating passes -6 % at
// 235B dW1 (debug bit 14).
constexpr int kDefaultVariantBf16 = 28;
// fp32 accumulate (main_grad): 12, the bulk fp32 adds from the staged tile. H200, 2026-11-30,
// interleaved, 12 vs 8: 30B dW2 1.208 vs 1.276 ms, dW1 2.171 vs 2.447; 235B dW2 4.39 vs 4.79, dW1
// 8.34 vs 9.45. A plain fp32 out loses with it (30B dW1 2.03 vs 1.84: the two halves serialize on
// the bulk engine's reads), so it keeps 8 (results/session3/run7_interleaved_f32.log).
// Session 5: 16, the TMA reduce-adds (interleaved, 7 rounds, results/session5/run11: 30B dW2 1.111 vs
// 1.136 ms, dW1 2.128 vs 2.194; 235B dW2 4.19 vs 4.26, dW1 8.03 vs 8.34). A plain fp32 out keeps 8: 16
// measured 30B −5 % / 0 %, 235B −2 % / +10 % against it.
constexpr int kDefaultVariantAccumulate = 16;
// Session 6: 19 (128-row chunks, 16 KiB staging in column passes) where B is the identity side shared
// by 2-CTA pairs (dW2 in the MoE backward). Interleaved, 7 rounds, fp32 accumulate, 19 vs 16: 30B dW2
// 0.950 vs 1.119 ms, 235B 3.941 vs 4.276; with A the identity side (dW1) 19 lost at 235B (8.33 vs 7.99)
// and 17 / 18 were within 2 % of 16, so dW1 keeps 16 (results/session6/run1/interleaved.log; since session 27 dW1
// runs swapped: see kDefaultVariantSwappedF32).
// Session 27 (H100, one process, 7 rounds, results/session27/run6): a plain fp32 out in the same form (dW2 with fp32
// weight gradients) in 19 against 8: 30B 0.861 vs 0.935 ms, 235B 3.596 vs 3.719 (21 0.857 / 3.464, 16 0.912 /
// 3.532): 19 for every fp32 out of the shared-B form.
// Session 39 (H100, one process, 5 rounds, results/session39/run1): 28 (128 x 384 tiles where I allows, its fp32
// passes alternating staging halves) against 19: plain fp32 235B 3.107 vs 3.535 ms, 30B 0.841 vs 0.902; accumulated
// 4.481 vs 4.765, 1.083 vs 1.133: 28 (elsewhere it runs as 21, whose fp32 tiles leave as 19's).
constexpr int kDefaultVariantSharedBF32 = 28;
// Session 27: 19 also for an fp32 dW1 (plain or accumulated) with its operands swapped (see the entry point). H100,
// one process, 7 rounds (results/session27/run5, run6), plain fp32: 30B 1.74-1.75 vs 1.90-1.93 ms (8 unswapped),
// 1.95 (16 unswapped); 235B 7.34-7.43 vs 7.75-7.88 (8), 7.04 (16); accumulated 2.39 vs 2.48 (16 unswapped), 235B 9.74
// vs 9.62 (overlapping ranges).
// Session 39 (H100, one process, 5 rounds, results/session39/run1, run2): a plain fp32 out in 28 against 19: 235B
// 6.210-6.320 vs 7.273-7.313 ms, 30B 1.540-1.542 vs 1.730-1.787: 28. Accumulated, 19's 4-CTA clusters stay: 235B 8.979-
// 9.013 vs 9.492-9.497 (28, pairs), 30B 2.227-2.297 vs 2.206-2.217.
constexpr int kDefaultVariantSwappedF32 = 28;
constexpr int kDefaultVariantSwappedAccumulate = 19;
inline bool known_variant(int v) {
  return v == 8 || v == 10 || v == 12 || v == 13 || v == 16 || v == 19 || v == 21 || v == 28;
}
// Pipeline 28's 128 x 384 tile (the kernel's DBUF form, 64-row chunks in 3 stages), taken where the cluster-shared
// side's width n divides by 384 (pairs only); elsewhere 28 runs as 21.
using PipeWide = Pipe<64, 3, 0, true, true, true, true, false, true>;
inline bool wide_tile(int variant, int n) { return variant == 28 && n % 384 == 0; }

// Tensor map over a row-major bf16 [rows, cols] matrix, box 64 columns x 64 rows, 128-byte
// swizzle (the layout the kernel's shared-memory ring uses); out-of-bounds rows read as zeros.
// fp32: a float matrix in boxes of 32 columns (128 bytes) x 64 rows (the fp32 TMA-store staging).
CUtensorMap make_tma_map(const void* base, int64_t rows, int cols, bool fp32 = false) {
  const cuuint64_t dims[2] = {static_cast<cuuint64_t>(cols), static_cast<cuuint64_t>(rows)};
  const cuuint64_t strides[1] = {static_cast<cuuint64_t>(cols) * (fp32 ? 4 : 2)};
  const cuuint32_t box[2] = {fp32 ? 32u : 64u, 64};
  return pk::encode_tensor_map(fp32 ? CU_TENSOR_MAP_DATA_TYPE_FLOAT32 : CU_TENSOR_MAP_DATA_TYPE_BFLOAT16, 2, base,
                               dims, strides, box, CU_TENSOR_MAP_SWIZZLE_128B, CU_TENSOR_MAP_L2_PROMOTION_L2_256B);
}

template <int BM, int BN, int CS, class P, bool TRANS = false>
void launch(Params p, const CUtensorMap& map, int max_ctas, cudaStream_t stream) {
  // TMA-store pipelines: out as [G * M, N] in 64 x 64 bf16 / 32 x 64 fp32 boxes, the staging layout's swizzle;
  // TRANS: out as [G * N, M] (the caller's [G, M, N] with its operands swapped).
  CUtensorMap out_map{};
  if constexpr (P::TMA_STORE) {
    const int64_t rows = static_cast<int64_t>(p.num_groups) * (TRANS ? p.N : p.M);
    PK_REQUIRE(rows < (int64_t(1) << 31), "G * M must be < 2^31");
    const int cols = TRANS ? p.M : p.N;
    out_map = p.out_bf16 != nullptr ? make_tma_map(p.out_bf16, rows, cols) : make_tma_map(p.out, rows, cols, true);
  }
  auto kernel = kgrouped_wgrad_kernel<BM, BN, CS, P, TRANS>;
  constexpr int smem = Config<BM, BN, P>::kSmemBytes;
  PK_CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, smem));
  p.tiles_m = p.M / BM;
  p.tiles_n = p.N / BN;
  p.units_m = p.tiles_m / (p.tma_side == 2 ? CS : 1);
  p.units_n = p.tiles_n / (p.tma_side == 1 ? CS : 1);
  const int64_t units = static_cast<int64_t>(p.num_groups) * p.units_m * p.units_n;
  PK_REQUIRE(units < (int64_t(1) << 30), "too many output tiles: %lld", (long long)units);
  p.num_units = static_cast<int>(units);
  if (p.num_units == 0) return;

  cudaLaunchConfig_t cfg{};
  cudaLaunchAttribute attr;
  int ctas = pk::current_device_attribute(cudaDevAttrMultiProcessorCount);
  if constexpr (CS > 1) {
    ctas = CS * pk::sm90::cluster_launch_config(cfg, attr, kernel, pk::sm90::kgrouped::kThreads, smem, stream, CS);
  } else {
    cfg.blockDim = dim3(pk::sm90::kgrouped::kThreads, 1, 1);
    cfg.dynamicSmemBytes = smem;
    cfg.stream = stream;
  }
  if (max_ctas > 0 && max_ctas < ctas) ctas = max_ctas;
  if (CS > 1) {
    ctas -= ctas % CS;
    if (ctas < CS) ctas = CS;
    if (ctas > CS * p.num_units) ctas = CS * p.num_units;
  } else if (ctas > p.num_units) {
    ctas = p.num_units;
  }
  cfg.gridDim = dim3(static_cast<unsigned>(ctas), 1, 1);
  PK_CUDA_CHECK(cudaLaunchKernelEx(&cfg, kernel, p, map, out_map));
  PK_CHECK_LAUNCH();
}

// A staged pipeline (64-row chunks, index prefetch, lean producer; bf16 outs through shared memory,
// fp32 ones too with F32) with `PEND` wgmma chunks in flight: 3 stages next to the staging tile at
// 128 x 256, 4 at 128 x 128. The staging tile holds 64 rows per consumer warpgroup, so 256 x 128
// tiles take the unstaged lean pipeline instead.
// Timing-diagnostic builds only (never in a wheel): PK_SM90_DIAG_WGRAD_BN128_STAGES=3 gives the 128-row-chunk
// pipeline (19) a third stage at 128 x 128 tiles (3 x 64 KiB + the 32 KiB staging fit; at 128 x 256 they do not), to
// see what one more chunk in flight buys at the same chunk size.
#ifndef PK_SM90_DIAG_WGRAD_BN128_STAGES
#define PK_SM90_DIAG_WGRAD_BN128_STAGES 2
#endif
template <int BM, int BN, int CS, int PEND, bool F32, bool TMA = false, bool SPLIT = false, int BK = 64,
          bool DEFER_TAIL = false, bool TRANS = false>
void launch_staged(Params p, const CUtensorMap& map, int max_ctas, cudaStream_t stream) {
  constexpr int kStages = BK == 128 ? (BN == 128 ? PK_SM90_DIAG_WGRAD_BN128_STAGES : 2) : BN == 256 && !SPLIT ? 3 : 4;
  if constexpr (BM == 128)
    launch<BM, BN, CS, Pipe<BK, kStages, PEND, true, F32, TMA, SPLIT, DEFER_TAIL>, TRANS>(p, map, max_ctas, stream);
  else
    launch<BM, BN, CS, Pipe<64, 4, PEND>>(p, map, max_ctas, stream);
}

template <int BM, int BN, int CS>
void launch_variant(int variant, Params p, const CUtensorMap& map, int max_ctas, cudaStream_t stream) {
  switch (variant) {
    case 10:
      launch_staged<BM, BN, CS, 1, false>(p, map, max_ctas, stream);
      break;
    case 12:
      launch_staged<BM, BN, CS, 1, true>(p, map, max_ctas, stream);
      break;
    case 13:
      launch_staged<BM, BN, CS, 0, true>(p, map, max_ctas, stream);
      break;
    case 16:
      launch_staged<BM, BN, CS, 0, true, true>(p, map, max_ctas, stream);
      break;
    case 19:
      launch_staged<BM, BN, CS, 0, true, true, true, 128>(p, map, max_ctas, stream);
      break;
    case 21:
    case 28:  // 28's 384-wide tiles are taken before this switch, where the shape allows them
      launch_staged<BM, BN, CS, 0, true, true, true, 128, true>(p, map, max_ctas, stream);
      break;
    default:  // 8
      launch<BM, BN, CS, pk::sm90::kgrouped::PipeLean>(p, map, max_ctas, stream);
  }
}

// The swapped dW1 (see the entry point): pipeline 19, 21 or 28 (128 x 384 tiles, pairs only) with the tile stored
// transposed, the identity side shared by clusters of CS.
template <int CS>
void launch_swapped(int variant, Params p, const CUtensorMap& map, int max_ctas, cudaStream_t stream) {
  if constexpr (CS == 2) {  // (the 4-CTA cluster shares only 256-wide tiles)
    if (wide_tile(variant, p.N)) return launch<128, 384, CS, PipeWide, true>(p, map, max_ctas, stream);
  }
  if (variant == 19) launch_staged<128, 256, CS, 0, true, true, true, 128, false, true>(p, map, max_ctas, stream);
  else launch_staged<128, 256, CS, 0, true, true, true, 128, true, true>(p, map, max_ctas, stream);
}

}  // namespace

// out[g] (+)= sum_{r in [offsets[g], offsets[g+1])} a[a_rows[r]]^T (x) b[b_rows[r]], fp32 accumulation.
//   a: bf16 [a_num_rows, M]; a_rows: int32 [num_rows] or null (identity); likewise b, b_rows, N;
//   offsets: int32 [num_groups + 1] on the device (never read on the host);
//   group_order: int32 [num_groups] on the device, the groups by descending row count (a permutation of
//   0..num_groups-1: the CTAs then walk the tiles in a balanced order, see walk_unit), or null (group order);
//   out: [num_groups, M, N], fp32 (out_bf16 = 0) or bf16 (out_bf16 = 1: rounded once from the fp32
//   accumulators); accumulate: 0 = overwrite, 1 = add (fp32 out only).
//   max_ctas: 0 = one CTA per SM, else at most that many (for testing the persistent loop).
//   use_tma: 1 = load a full chunk of an identity-indexed operand by TMA (0: cp.async only).
//   debug: tuning only (bit 0: skip epilogue stores, bit 1: skip wgmma, bit 2: no cluster,
//          bit 8: 256 x 128 cluster tiles when A is the TMA side, bit 9: 128 x 256 cluster
//          tiles sharing A along N, bit 10: no operand swap for an out with A identity and B gathered,
//          in that swapped form bit 11: 4-CTA clusters, bit 12: 2-CTA pairs (default: 4 for an fp32
//          accumulate where N / 128 % 4 == 0, else pairs); see the kernel header for the rest); 0 in normal use.
//   block_n: 0 = choose (256 when N % 256 == 0, else 128), or 128 / 256 to force (tests, tuning).
//   variant: pipeline shape, 0 = the default for the out dtype, else 8, 10, 12, 13, 16, 19, 21 or 28 (see above).
// Needs M % 128 == 0 and N % 128 == 0 (status kNotSupported otherwise).
PK_EXPORT int pk_sm90_k_grouped_wgrad(const void* a, const int* a_rows, int64_t a_num_rows,
                                      const void* b, const int* b_rows, int64_t b_num_rows,
                                      int64_t num_rows, const int* offsets, const int* group_order,
                                      int num_groups, int M,
                                      int N, void* out, int out_bf16, int accumulate, int max_ctas,
                                      int block_n, int use_tma, int debug, int variant,
                                      void* stream) {
  return pk::guarded("pk_sm90_k_grouped_wgrad", [&] {
    PK_REQUIRE(a != nullptr && b != nullptr && offsets != nullptr && out != nullptr,
               "a, b, offsets and out must be non-null");
    PK_REQUIRE(num_groups >= 0, "num_groups must be >= 0, got %d", num_groups);
    PK_REQUIRE(M > 0 && N > 0, "M and N must be positive, got %d, %d", M, N);
    PK_REQUIRE(num_rows >= 0 && num_rows < (int64_t(1) << 31), "num_rows out of range: %lld",
               (long long)num_rows);
    PK_REQUIRE(a_num_rows >= 0 && a_num_rows < (int64_t(1) << 31) && b_num_rows >= 0 &&
                   b_num_rows < (int64_t(1) << 31),
               "a/b row counts out of range");
    if (M % 128 != 0 || N % 128 != 0)
      pk::fail(pk::kNotSupported, "M and N must be multiples of 128, got M=%d N=%d", M, N);
    Params p{};
    p.a = static_cast<const __nv_bfloat16*>(a);
    p.a_rows = a_rows;
    p.b = static_cast<const __nv_bfloat16*>(b);
    p.b_rows = b_rows;
    p.offsets = offsets;
    p.group_order = group_order;
    PK_REQUIRE(!(out_bf16 && accumulate), "a bf16 out cannot be accumulated into (use an fp32 out)");
    PK_REQUIRE(reinterpret_cast<uintptr_t>(out) % 16 == 0,
               "out must be 16-byte aligned (vector, bulk and TMA stores)");
    p.out = out_bf16 ? nullptr : static_cast<float*>(out);
    p.out_bf16 = out_bf16 ? static_cast<__nv_bfloat16*>(out) : nullptr;
    p.a_num_rows = a_num_rows;
    p.b_num_rows = b_num_rows;
    p.num_rows = num_rows;
    p.M = M;
    p.N = N;
    p.num_groups = num_groups;
    p.accumulate = accumulate ? 1 : 0;
    p.debug = debug;
    auto s = static_cast<cudaStream_t>(stream);
    PK_REQUIRE(block_n == 0 || block_n == 128 || block_n == 256, "block_n must be 0, 128 or 256");
    PK_REQUIRE(variant == 0 || known_variant(variant), "variant must be 0, 8, 10, 12, 13, 16, 19, 21 or 28, got %d",
               variant);
    // An out with A the identity side and B gathered (dW1 in the MoE backward) in pipeline 19, 21 or 28 runs as out^T = sum
    // b[b_rows]^T (x) a: the gathered operand becomes the tile's 128-wide side (half the gathered copies a chunk) and
    // the identity one the 256-wide side, loaded by TMA and shared by a cluster (as dW2 runs; 2 or 4 CTAs, below); the
    // kernel writes the tile transposed. debug bit 10 keeps the caller's orientation (tuning), as do the tile and
    // cluster switches (bits 2, 8, 9). Measured (session 27, H100, across processes): dW1 -4..-9 % at 30B, -6..-7 % at
    // 235B; the layer's fwd+bwd -1.3 / -1.4 % (results/sm90_moe.md).
    const bool aligned_a = (reinterpret_cast<uintptr_t>(a) & 15) == 0;
    // fp32 outs swap too: plain into 28, accumulated into 19 (4-CTA clusters, below). (16 swapped too in session 27's
    // first form; with the fp32 transposed staging its kernel spilled 36 bytes, and it is no default: dropped.)
    const int v_swap = variant != 0 ? variant
                       : out_bf16   ? kDefaultVariantBf16
                       : accumulate ? kDefaultVariantSwappedAccumulate
                                    : kDefaultVariantSwappedF32;
    if ((v_swap == 19 || v_swap == 21 || v_swap == 28) && block_n == 0 && use_tma &&
        !(debug & (4 | 256 | 512 | 1024)) && a_rows == nullptr && b_rows != nullptr && a_num_rows > 0 && aligned_a &&
        M % 256 == 0 && (N / 128) % 2 == 0) {
      std::swap(p.a, p.b);
      std::swap(p.a_rows, p.b_rows);
      p.a_num_rows = b_num_rows;
      p.b_num_rows = a_num_rows;
      p.M = N;
      p.N = M;
      p.tma_side = 2;
      const CUtensorMap map = make_tma_map(a, a_num_rows, M);
      // The identity side is shared by a pair, or for an fp32 accumulate by 4-CTA clusters where the gathered side's
      // 128-column tiles come in fours: per CTA and tile 128 instead of 256 of its 512 KiB a 1024-row tile from L2 (384
      // KiB in all, -25 %), on the SMs that take whole clusters of 4 (a GPC's remainder idles). Session 32 (H100, one
      // process, 5-7 rounds, results/session32/run1, run2), 4-CTA against pairs at 30B / 235B: fp32 accumulate
      // 2.255-2.265 vs 2.376-2.380 ms (-5 %), 8.944-8.953 vs 9.902-10.018 (-10 %); bf16 out 1.481 vs 1.433 (+3 %),
      // 6.095 vs 5.874 (+4 %); plain fp32 1.882 vs 1.750 (+8 %), 7.474 vs 7.409 (+1 %). (At 235B its loads alone -33 %,
      // its MMAs alone +5 %: idle SMs, four CTAs in lockstep.) Debug bit 11 forces 4-CTA clusters, bit 12 pairs
      // (tuning).
      const bool fours = (p.M / 128) % 4 == 0 && !(debug & 4096) && ((debug & 2048) || accumulate) &&
                         !wide_tile(v_swap, p.N);  // the 384-wide tile comes in pairs
      if (fours) launch_swapped<4>(v_swap, p, map, max_ctas, s);
      else launch_swapped<2>(v_swap, p, map, max_ctas, s);
      return;
    }
    const int v = variant != 0 ? variant
                  : out_bf16   ? kDefaultVariantBf16
                  : accumulate ? kDefaultVariantAccumulate
                               : kDefaultVariant;
    if (block_n == 256 && N % 256 != 0)
      pk::fail(pk::kNotSupported, "block_n 256 needs N %% 256 == 0, got N=%d", N);

    // The identity-indexed operand (B when both are) comes by TMA on full chunks; that needs a
    // 16-byte aligned base. Otherwise everything goes through cp.async.
    CUtensorMap map{};
    auto aligned = [](const void* q) { return (reinterpret_cast<uintptr_t>(q) & 15) == 0; };
    p.tma_side = 0;
    if (use_tma && b_rows == nullptr && b_num_rows > 0 && aligned(b)) {
      p.tma_side = 2;
      map = make_tma_map(b, b_num_rows, N);
    } else if (use_tma && a_rows == nullptr && a_num_rows > 0 && aligned(a)) {
      p.tma_side = 1;
      map = make_tma_map(a, a_num_rows, M);
    }
    const bool allow_mc = !(debug & 4);  // debug bit 2: same tiles without the cluster
    if (block_n == 0 && p.tma_side == 2 && N % 256 == 0 && (M / 128) % 2 == 0) {
      // B (identity) shared by two CTAs on neighbouring m-tiles: 128 x 256 tiles.
      const int v_mc = variant == 0 && !out_bf16 ? kDefaultVariantSharedBF32 : v;
      if (allow_mc && wide_tile(v_mc, N)) launch<128, 384, 2, PipeWide>(p, map, max_ctas, s);
      else if (allow_mc) launch_variant<128, 256, 2>(v_mc, p, map, max_ctas, s);
      else launch_variant<128, 256, 1>(v, p, map, max_ctas, s);
    } else if (block_n == 0 && (debug & 512) && allow_mc && p.tma_side == 1 && N % 512 == 0) {
      // Opt-in (debug bit 9): A (identity, by TMA) shared by two CTAs on neighbouring 256-wide
      // n-tiles (128 x 256 tiles, each CTA loads one of the two 64-column boxes of A and multicasts).
      launch_variant<128, 256, 2>(v, p, map, max_ctas, s);
    } else if (block_n == 0 && (debug & 256) && p.tma_side == 1 && M % 256 == 0 && (N / 128) % 2 == 0) {
      // Opt-in (debug bit 8): A (identity) shared by two CTAs on neighbouring n-tiles, 256 x 128
      // tiles so that the shared operand is the larger one. Measured 2-7% slower than plain
      // 128 x 256 tiles with A by TMA at the dW1 shapes (notes/sm90_kgrouped.md), so not default.
      if (allow_mc) launch_variant<256, 128, 2>(v, p, map, max_ctas, s);
      else launch_variant<256, 128, 1>(v, p, map, max_ctas, s);
    } else if (block_n == 256 || (block_n == 0 && N % 256 == 0)) {
      launch_variant<128, 256, 1>(v, p, map, max_ctas, s);
    } else {
      launch_variant<128, 128, 1>(v, p, map, max_ctas, s);
    }
  });
}
