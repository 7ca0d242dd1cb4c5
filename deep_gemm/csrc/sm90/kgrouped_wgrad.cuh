// Hopper (sm_90a) k-grouped weight-gradient GEMM with on-the-fly row gathers.
//
//   out[g][m][n] (+)= sum_{r in [offsets[g], offsets[g+1])} a[a_rows[r]][m] * b[b_rows[r]][n]
//
// The reduction runs over token rows, so both operands arrive "K-major in rows": in wgmma terms
// both are MN-major (m, resp. n, contiguous in shared memory), which wgmma takes for bf16 through
// the descriptor's transpose bits.
//
// Structure: persistent, one CTA per SM, 3 warpgroups.
//   warpgroup 0        producer: gathers 64-row chunks of A (64 x 128) and B (64 x BN) with 16-byte
//                      cp.async into a kStages-deep shared-memory ring (128-byte swizzle), row
//                      indices prefetched one chunk ahead; completion through cp.async.mbarrier.arrive.
//   warpgroups 1 and 2 consumers: each owns 64 output rows of the 128 x BN tile, issues
//                      wgmma m64nBNk16 (fp32 accumulators in registers), then stores its fp32
//                      tile straight to global memory (optionally adding what is there), or
//                      its bf16 rounding.
// Consumers store either straight from registers or through a shared-memory staging tile (`Pipe`
// below: the pipeline shapes the entry point's `variant` picks).
// Tiles (group, m-tile, n-tile) are walked statically: CTA (cluster) c takes slots c + i * step, in group
// order or (given group_order) in a balanced order (`walk_unit`): groups by descending row count, each
// round of `step` slots dealt forwards then backwards, so that every CTA's sum of tile depths is about
// the mean however skewed the groups are (a tile's time is its group's row count; in group order the CTAs
// that drew the busiest groups' tiles finish last).
// Rows past a group's end (or with an out-of-range index) are zero-filled (cp.async src-size 0).
#pragma once
#include <cstdint>
#include <type_traits>
#include <utility>
#include <cuda.h>
#include <cuda_bf16.h>
#include <cute/arch/mma_sm90_gmma.hpp>
#include "cluster.cuh"
#include "epilogue.cuh"  // StagedTile (staged bf16 epilogue); ptx.cuh: pack_bf16x2
#include "kgrouped_walk.cuh"

namespace pk::sm90::kgrouped {

constexpr int kBlockK = 64;        // default reduction rows per pipeline stage (chunk)
constexpr int kStages = 4;         // default ring depth
constexpr int kThreads = 384;      // producer warpgroup + 2 consumer warpgroups
constexpr int kSpanBytes = 128;    // one swizzle span: 64 bf16 along M or N
constexpr int kMaxSmemBytes = 232448;  // sm_90 opt-in dynamic shared memory per block (227 KiB)

// Pipeline shape (the `variant` of the entry point picks one; notes/sm90_kgrouped.md has the
// measurements behind each choice and the forms that were tried and removed):
//   BK     reduction rows per stage (chunk): 64 or 128
//   STAGES shared-memory ring depth
//   PEND   chunks whose wgmma stay in flight after a consumer's issue (0 or 1): the consumer
//          waits `wgmma.wait_group PEND` and then releases the stage of chunk i - PEND (PEND 0:
//          the stage of the chunk just issued, after its wgmma completed). With 3 stages, PEND 1
//          leaves the producer one chunk of lookahead and PEND 0 two.
//   STAGED a bf16 output tile goes registers -> shared memory (stmatrix) -> global (one bulk copy
//          per row), and the consumers go straight into the next tile's MMAs while the copies
//          drain. Every tile has the same length (~1024 rows per expert in an MoE layer), so all
//          CTAs store at once and the direct store idles the tensor cores for the whole burst.
//          Costs one stage of the ring (a 66 KiB staging tile at 128 x 256).
//   STAGED_F32 (with STAGED) fp32 outputs go through the staging buffer too, in two column halves
//          (the second waits until the bulk engine has read the first), and accumulate becomes a
//          bulk fp32 add into out (else: direct stores).
//   TMA_STORE (with STAGED) a bf16 tile leaves through TMA tensor stores, BN/64 boxes of 64 x 64 a
//          consumer warpgroup issued by one thread, from a 128B-swizzled staging layout, instead of
//          one bulk copy per row (16 lanes a warp, which the hardware issues one lane at a time: ncu
//          put ~10 % of the consumers' samples in that loop, results/session5/run5); with STAGED_F32
//          fp32 tiles too (two column halves of 32-float boxes, TMA reduce-add to accumulate).
//   SPLIT  (with TMA_STORE) a 16 KiB staging buffer per consumer warpgroup instead of a whole tile's
//          rows: tiles leave in column passes (bf16 128 columns, fp32 64), each pass after the
//          previous one's TMA reads. The 32 KiB saved make room for two 96 KiB stages of 128-row chunks.
//   DEFER_TAIL (with SPLIT, PEND 0) a bf16 tile's last column pass is held in registers as packed bf16 and
//          written out while the next tile's first chunk of wgmma runs, instead of after the TMA engine has read
//          the previous pass out of the staging buffer with the tensor pipe idle (session 20 run 7: the epilogue
//          cost the bf16 default 6-16 %; this form took 2-7 % off, run 9). setmaxnreg gives the consumers the
//          registers (72 / 216 / 216).
//   DBUF   (with SPLIT, TMA stores) a bf16 tile leaves in 64-column passes (a non-transposed fp32 one in 32-column
//          passes, session 39: even with the wait for the last pass) that alternate between the two 8 KiB
//          halves of the warpgroup's staging buffer: a pass waits only for the pass before the previous one to have
//          been read (one bulk group left in flight), not for the last. For the 128 x 384 tile, which has no
//          registers left to defer a pass (192 accumulators a thread).
// The producer always runs the lean loop (below) with the row indices of each tile prefetched into
// L1 when it enters the tile: the earlier loop recomputed the tile every chunk and waited an L2
// round trip on each chunk's index loads (~565 SASS instructions, ~1500 stall cycles per 64-row
// chunk against the chunk's 1024 MMA cycles).
template <int BK_, int STAGES_, int PEND_, bool STAGED_ = false, bool STAGED_F32_ = false, bool TMA_STORE_ = false,
          bool SPLIT_ = false, bool DEFER_TAIL_ = false, bool DBUF_ = false>
struct Pipe {
  static_assert(BK_ == 64 || BK_ == 128, "chunk rows");
  static_assert(PEND_ >= 0 && PEND_ <= 1 && STAGES_ >= PEND_ + 1, "pipeline depth");
  static_assert(!STAGED_F32_ || STAGED_, "the fp32 staged epilogue uses the bf16 one's buffer");
  static_assert(!TMA_STORE_ || STAGED_, "the TMA store goes through the staging buffer");
  static_assert(!SPLIT_ || (TMA_STORE_ && STAGED_F32_), "column passes: TMA stores of bf16 and fp32 tiles");
  static_assert(!DEFER_TAIL_ || (SPLIT_ && PEND_ == 0), "the deferred pass is written for 19's pipeline");
  static constexpr int BK = BK_, STAGES = STAGES_, PEND = PEND_;
  static constexpr bool STAGED = STAGED_, STAGED_F32 = STAGED_F32_, TMA_STORE = TMA_STORE_, SPLIT = SPLIT_;
  static_assert(!DBUF_ || (SPLIT_ && !DEFER_TAIL_), "double-buffered passes: a SPLIT form without the deferred pass");
  static constexpr bool DEFER_TAIL = DEFER_TAIL_, DBUF = DBUF_;
};
using PipeLean = Pipe<64, 4, 1>;

// BM x BN output tile: (128, 384), (128, 256), (128, 128) or (256, 128); each consumer warpgroup owns BM/2 rows.
// 128 x 384 (session 38): each SM receives 11 % fewer operand bytes a FLOP than at 128 x 256 and a third fewer
// gathered ones (the weight gradients are bound by the bytes through each SM, notes/sm90_moe_kernels.md); its
// 192 accumulators a thread take two wgmma n192 a k-step and leave room only for 64-row chunks in 3 stages.
// CS: cluster size (1: none). A cluster's CTAs share the TMA-loaded operand, each loading 1/CS of its
// 64-column boxes and multicasting them to all: along M (CS m-tiles, same n-tile) when B is the TMA side,
// along N when A is. CS 4 only with B shared at BN 256 (one box a CTA: the swapped dW1, see the entry point).
template <int BM, int BN, class P = PipeLean>
struct Config {
  static_assert((BM == 128 && (BN == 128 || BN == 256 || BN == 384)) || (BM == 256 && BN == 128), "tile shape");
  static_assert(BN != 384 || (P::SPLIT && P::BK == 64), "128 x 384: 64-row chunks, staged in column passes");
  static constexpr int kBK = P::BK;
  static constexpr int kStages = P::STAGES;
  static constexpr int kBlockBytes = kBK * kSpanBytes;  // a BK-row x 64-column block (8 / 16 KiB)
  static constexpr int kABytes = kBK * BM * 2;
  static constexpr int kBBytes = kBK * BN * 2;
  static constexpr int kStageBytes = kABytes + kBBytes;
  static constexpr int kBarrierBytes = 2 * kStages * 8;
  // Staged epilogue: one 64-row half of the bf16 tile per consumer warpgroup, after the ring.
  static_assert(!P::STAGED || BM == 128, "the staged epilogue takes 64 rows per consumer warpgroup");
  static constexpr int kStagingBytes = P::SPLIT ? 2 * 16384 : P::STAGED ? 2 * 64 * StagedTile<BN>::kRowBytes : 0;
  // Columns a warpgroup's 64 rows pass through staging at once (SPLIT: 16 KiB of them).
  static constexpr int kPassColsBf16 = P::DBUF ? 64 : P::SPLIT && BN > 128 ? 128 : BN;
  static constexpr int kPassColsF32 = P::SPLIT ? 64 : BN / 2;
  // +1024: the ring must start 1024-byte aligned for the 128-byte swizzle pattern.
  static constexpr int kSmemBytes = kStages * kStageBytes + kStagingBytes + kBarrierBytes + 1024;
  static_assert(kSmemBytes <= kMaxSmemBytes, "shared-memory ring too large");
  static constexpr int kMBlocks = BM / 128;               // m64 blocks per consumer warpgroup
  static constexpr int kAccRegs = BN / 2;                 // per m64 block: 64 x BN fp32 / 128 threads
};

struct Params {
  const __nv_bfloat16* a;   // [a_num_rows, M]
  const int* a_rows;        // [R] or nullptr (identity)
  const __nv_bfloat16* b;   // [b_num_rows, N]
  const int* b_rows;        // [R] or nullptr
  const int* offsets;       // [G + 1], device
  const int* group_order;   // [G], device: the groups by descending row count (a permutation of 0..G-1), or
                            // nullptr: the plain walk (see walk_unit)
  float* out;               // [G, M, N] fp32, or nullptr when out_bf16 is set
  __nv_bfloat16* out_bf16;  // [G, M, N] bf16 (no accumulate): the parameter-dtype gradient written
                            // straight from the accumulators, instead of fp32 + a cast pass
  int64_t a_num_rows, b_num_rows, num_rows;  // num_rows = R
  int M, N, num_groups;
  int tiles_m, tiles_n;     // CTA tiles per group along M and N
  int units_m, units_n;     // scheduling units per group (tiles, or tile pairs along the cluster dim)
  int num_units;
  int accumulate;
  int tma_side;  // 0: both operands by cp.async; 1: A by TMA on full chunks; 2: B by TMA
  int debug;     // tuning only (see also the entry point's `variant`): bit 0 skips the epilogue stores, bit 1 skips the wgmma,
                 // bit 2 (host) no cluster, bit 3 offsets odd CTAs' start by ~half a tile,
                 // bit 4 no chunk rotation, bit 5 no proxy fence, bit 6 no loads,
                 // bit 7 release each stage right after wgmma.wait_group 0, bit 13 TMA-stored bf16 tiles all land in
                 // one tile-sized region a CTA (group 0; L2-resident, values meaningless: the stores' cost to the SM and
                 // to L2 without their DRAM traffic), bit 14 (DBUF) each pass waits for the last one's reads
};

// ---- small PTX helpers (smem_u32, cp_async_16 and fence_proxy_async_smem: ptx.cuh's) --------------

__device__ __forceinline__ void mbar_init(uint32_t bar, uint32_t count) {
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(bar), "r"(count) : "memory");
}

__device__ __forceinline__ void mbar_wait(uint32_t bar, uint32_t parity) {
  uint32_t done = 0;
  do {
    asm volatile(
        "{\n .reg .pred p;\n mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\n"
        " selp.u32 %0, 1, 0, p;\n}\n"
        : "=r"(done)
        : "r"(bar), "r"(parity)
        : "memory");
  } while (!done);
}

__device__ __forceinline__ void mbar_arrive(uint32_t bar) {
  asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];" ::"r"(bar) : "memory");
}

// Arrives on `bar` once all of this thread's earlier cp.async copies have landed (counts as one
// of the barrier's expected arrivals).
__device__ __forceinline__ void cp_async_arrive_noinc(uint32_t bar) {
  asm volatile("cp.async.mbarrier.arrive.noinc.shared::cta.b64 [%0];" ::"r"(bar) : "memory");
}

__device__ __forceinline__ void mbar_arrive_expect_tx(uint32_t bar, uint32_t bytes) {
  asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(bar), "r"(bytes)
               : "memory");
}

// Byte offset of float (row, col) in a TMA box of 64 rows x 32 floats (128-byte rows, 128-byte swizzle: 16-byte
// piece j of row r at j ^ (r % 8)): the fp32 staging layout, in either orientation.
__device__ __forceinline__ uint32_t f32_box_offset(int row, int col) {
  return row * 128 + (((col / 4) ^ (row % 8)) << 4) + (col % 4) * 4;
}

// 2-D TMA tile load (box 64 columns x 64 rows, 128-byte swizzle) completing on `bar`.
__device__ __forceinline__ void tma_load_2d(uint32_t dst, const CUtensorMap* map, int col, int row,
                                            uint32_t bar) {
  asm volatile(
      "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3}], [%4];"
      ::"r"(dst), "l"(reinterpret_cast<uint64_t>(map)), "r"(col), "r"(row), "r"(bar)
      : "memory");
}

// wgmma shared-memory descriptor, 128-byte swizzle. For an MN-major operand laid out as
// [MN/64 blocks][K rows][64 elements], LBO = stride between 64-wide MN blocks and
// SBO = stride between 8-row groups of K (CuTe: ((8,n),(8,k)):((1,LBO),(8,SBO)) in 16-byte units).
__device__ __forceinline__ uint64_t make_desc_mn_sw128(uint32_t addr, uint32_t lbo, uint32_t sbo) {
  uint64_t d = 0;
  d |= static_cast<uint64_t>((addr & 0x3FFFF) >> 4);
  d |= static_cast<uint64_t>((lbo & 0x3FFFF) >> 4) << 16;
  d |= static_cast<uint64_t>((sbo & 0x3FFFF) >> 4) << 32;
  d |= static_cast<uint64_t>(1) << 62;  // layout type: 128-byte swizzle
  return d;
}

template <int BN>
struct Mma;
template <>
struct Mma<256> {
  using Op = cute::SM90::GMMA::MMA_64x256x16_F32BF16BF16_SS<cute::SM90::GMMA::Major::MN, cute::SM90::GMMA::Major::MN>;
};
template <>
struct Mma<192> {
  using Op = cute::SM90::GMMA::MMA_64x192x16_F32BF16BF16_SS<cute::SM90::GMMA::Major::MN, cute::SM90::GMMA::Major::MN>;
};
template <>
struct Mma<128> {
  using Op = cute::SM90::GMMA::MMA_64x128x16_F32BF16BF16_SS<cute::SM90::GMMA::Major::MN, cute::SM90::GMMA::Major::MN>;
};

template <int BN, int... I>
__device__ __forceinline__ void wgmma_call(uint64_t da, uint64_t db, float* acc,
                                           std::integer_sequence<int, I...>) {
  Mma<BN>::Op::fma(da, db, acc[I]..., cute::SM90::GMMA::ScaleOut::One);
}

// ---- cluster helpers (CS > 1) ----------------------------------------------------------------------

// TMA tile load multicast to every CTA in `mask` (same smem offsets, each CTA's barrier there).
__device__ __forceinline__ void tma_load_2d_mc(uint32_t dst, const CUtensorMap* map, int col, int row,
                                               uint32_t bar, uint16_t mask) {
  asm volatile(
      "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes.multicast::cluster"
      " [%0], [%1, {%2, %3}], [%4], %5;"
      ::"r"(dst), "l"(reinterpret_cast<uint64_t>(map)), "r"(col), "r"(row), "r"(bar), "h"(mask)
      : "memory");
}

// ---- tile bookkeeping -------------------------------------------------------------------------

struct TileInfo {
  int group, m0, n0;   // n0 in elements
  int64_t start, end;  // reduction rows [start, end), clipped to [0, R]
  int nch, rot;        // chunks; the tile walks chunks rot, rot+1, ..., wrapping at nch
};

// Group g's reduction rows [s, e), clipped to [0, R].
__device__ __forceinline__ void group_rows(const Params& p, int g, int64_t& s, int64_t& e) {
  s = __ldg(p.offsets + g);
  e = __ldg(p.offsets + g + 1);
  s = s < 0 ? 0 : (s > p.num_rows ? p.num_rows : s);
  e = e < s ? s : (e > p.num_rows ? p.num_rows : e);
}

// The walk: CTA (cluster) c of a grid of `step` clusters takes the slots c + i * step. Plain (no
// group_order): the slot is the unit, groups in their own order. Balanced: groups in group_order
// (descending row count), the rounds dealt forwards and backwards (balanced_unit, kgrouped_walk.cuh). The
// order comes from global memory by __ldg: read from shared memory, it kept the 40-register producer of the
// 128 x 384 tile from recomputing its tile's rows (ptxas could no longer rematerialize them) and spilled it.
__device__ __forceinline__ bool balanced_walk(const Params& p) { return p.group_order != nullptr; }

template <int CS>
__device__ __forceinline__ int walk_unit(const Params& p, int slot) {
  if (!balanced_walk(p)) return slot;
  return balanced_unit(slot, static_cast<int>(blockIdx.x) / CS, static_cast<int>(gridDim.x) / CS, p.num_units);
}

// Slot -> this CTA's tile. With a cluster, the unit is CS neighbouring tiles along M (B shared) or N
// (A shared), and `rank` picks the CTA's.
template <int BM, int BN, int CS, int BK = kBlockK>
__device__ __forceinline__ TileInfo tile_info(const Params& p, int slot, int rank) {
  TileInfo t;
  const int per_group = p.units_m * p.units_n;
  const int unit = walk_unit<CS>(p, slot);
  const int gi = unit / per_group;
  t.group = balanced_walk(p) ? __ldg(p.group_order + gi) : gi;
  const int rem = unit - gi * per_group;
  int mt = rem / p.units_n;
  int nt = rem - mt * p.units_n;
  if constexpr (CS > 1) {
    if (p.tma_side == 2) mt = CS * mt + rank;  // B shared: the cluster spans CS m-tiles
    else nt = CS * nt + rank;                  // A shared: CS n-tiles
  }
  t.m0 = mt * BM;
  t.n0 = nt * BN;
  group_rows(p, t.group, t.start, t.end);
  t.nch = static_cast<int>((t.end - t.start + BK - 1) / BK);
  // Tiles of one group run at the same time and have the same length: started at the same
  // chunk they would all read the same rows at once (hot L2 lines). Each tile (pair) starts
  // at its own chunk instead; the sum is the same. All CTAs of a cluster share `unit`.
  t.rot = (p.debug & 16) || t.nch == 0 ? 0 : rem % t.nch;
  return t;
}

template <int BK = kBlockK>
__device__ __forceinline__ int num_chunks(const TileInfo& t) {
  return static_cast<int>((t.end - t.start + BK - 1) / BK);
}

// One operand's rows of a chunk by cp.async, for one producer thread: its 16-byte piece (at `col`,
// already offset to the piece) of each of its rows rbase + 16 j, in every one of the kSpans 64-column
// spans, into `stage` (its swizzled offset included). Rows at or past e0, or with an index outside
// [0, num_rows), are zero-filled.
// Each row's address is one 32 x 32 -> 64-bit multiply-add (num_rows < 2^31 and the row pitch < 2^32
// bytes are checked on the host): ~6 instead of ~12 SASS instructions a row with 64-bit signed
// arithmetic, in the producer that bounds the kernel (ncu, session 6 run 10; −1..−5 %, run 11).
template <int kSpans, int kBlockBytes, int kRows>
__device__ __forceinline__ void gather_chunk(uint32_t stage, const __nv_bfloat16* col, const int (&idx)[kRows],
                                             int64_t ld, int64_t num_rows, unsigned rbase, unsigned e0) {
  const uint32_t pitch = static_cast<uint32_t>(ld) * 2u;  // bytes
#pragma unroll
  for (int j = 0; j < kRows; ++j) {
    const bool v = rbase + 16u * j < e0 && static_cast<unsigned>(idx[j]) < static_cast<unsigned>(num_rows);
    const __nv_bfloat16* g = reinterpret_cast<const __nv_bfloat16*>(
        reinterpret_cast<const char*>(col) + static_cast<uint64_t>(v ? static_cast<unsigned>(idx[j]) : 0u) * pitch);
#pragma unroll
    for (int q = 0; q < kSpans; ++q) cp_async_16(stage + j * 16 * kSpanBytes + q * kBlockBytes, g + q * 64, v ? 16u : 0u);
  }
}

// ---- the kernel -------------------------------------------------------------------------------

// TRANS: out is written transposed, as [G, N, M] (out_map: [G * N, M] in 64 x 64 bf16 / 32 x 64 fp32 boxes): the
// host swaps a caller's operands so that the gathered one is the tile's narrow side (M) and the identity one, by TMA,
// the wide side shared by a cluster (2 or 4 CTAs), and gets the caller's [G, M, N] layout back this way (TMA-store
// pipelines).
template <int BM, int BN, int CS, class P = PipeLean, bool TRANS = false>
__global__ void __launch_bounds__(kThreads, 1)
    kgrouped_wgrad_kernel(const Params p, const __grid_constant__ CUtensorMap tma_map,
                          const __grid_constant__ CUtensorMap out_map) {
  static_assert(!TRANS || (P::TMA_STORE && P::STAGED_F32 && BM == 128), "the transposed out is a TMA-store form");
  static_assert(CS == 1 || CS == 2 || (CS == 4 && BN == 256), "cluster size: 1, 2, or 4 sharing B at BN 256");
  using Cfg = Config<BM, BN, P>;
  constexpr int BK = P::BK;
  constexpr int kStages = P::STAGES;
  constexpr int kBlockBytes = Cfg::kBlockBytes;
  constexpr int kRowsPerThread = BK / 16;  // producer: rows row_in + 16 j of each chunk
  extern __shared__ __align__(1024) uint8_t smem_raw[];
  const uint32_t smem_base = (smem_u32(smem_raw) + 1023u) & ~1023u;
  const uint32_t staging_base = smem_base + kStages * Cfg::kStageBytes;  // STAGED only
  const uint32_t bar_base = staging_base + Cfg::kStagingBytes;
  auto full_bar = [&](int s) { return bar_base + 8u * s; };
  auto empty_bar = [&](int s) { return bar_base + 8u * (kStages + s); };
  auto stage_a = [&](int s) { return smem_base + s * Cfg::kStageBytes; };
  auto stage_b = [&](int s) { return smem_base + s * Cfg::kStageBytes + Cfg::kABytes; };
  const int rank = CS > 1 ? static_cast<int>(cluster_ctarank()) : 0;
  const int slot0 = static_cast<int>(blockIdx.x) / CS;
  const int slot_step = static_cast<int>(gridDim.x) / CS;

  if (threadIdx.x == 0) {
    for (int s = 0; s < kStages; ++s) {
      // 128 producer threads arrive through cp.async, plus one plain / expect-tx arrival.
      mbar_init(full_bar(s), 129);
      // One arrival per consumer warpgroup (of every CTA of a cluster: a multicast into a
      // stage needs it free in all of them).
      mbar_init(empty_bar(s), 2 * CS);
    }
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
  }
  if constexpr (CS > 1) cluster_sync(); else __syncthreads();

  const int wg = threadIdx.x / 128;
  if (wg == 0) {
    // ================= producer: gathered cp.async loads (+ TMA for an identity operand) =======
    if constexpr (P::DEFER_TAIL) setmaxnreg_dec<72>();
    if constexpr (BN == 384) setmaxnreg_dec<40>();  // 64-row chunks: 4 row indices a side
    const int pt = threadIdx.x;
    const int row_in = pt >> 3;  // 0..15: rows row_in + 16 j, j < BK / 16
    const int piece = pt & 7;    // 16-byte piece within each 128-byte span
    // Swizzled byte offset of this thread's piece; row & 7 == row_in & 7 for all four rows.
    const uint32_t swz = static_cast<uint32_t>((piece ^ (row_in & 7)) << 4);
    const uint32_t row_off = static_cast<uint32_t>(row_in) * kSpanBytes + swz;

    int slot = slot0;
    int chunk = 0;
    TileInfo ti;
    // Prefetch a gathered side's row indices of tile t into L1, one 128-byte line per thread
    // (addresses clamped into [rows + t.start, rows + t.end), which is non-empty here).
    auto prefetch_rows = [&](const int* rows, const TileInfo& t) {
      if (rows == nullptr) return;
      const uintptr_t lo = reinterpret_cast<uintptr_t>(rows + t.start);
      const uintptr_t hi = reinterpret_cast<uintptr_t>(rows + t.end);
      for (uintptr_t line = (lo & ~static_cast<uintptr_t>(127)) + 128u * static_cast<uint32_t>(pt); line < hi;
           line += 128u * 128u) {
        const uintptr_t addr = line < lo ? lo : line;
        asm volatile("prefetch.global.L1 [%0];" ::"l"(addr));
      }
    };
    auto settle = [&]() {  // move (slot, chunk) to the next slot that has rows left
      while (slot < p.num_units) {
        ti = tile_info<BM, BN, CS, BK>(p, slot, rank);
        if (static_cast<int64_t>(chunk) * BK < ti.end - ti.start) {
          if (chunk == 0) {  // entering this tile
            prefetch_rows(p.a_rows, ti);
            prefetch_rows(p.b_rows, ti);
          }
          return;
        }
        slot += slot_step;
        chunk = 0;
      }
    };
    // A full chunk of an identity operand comes by TMA (one thread; with a cluster each CTA loads
    // 1/CS of the columns and multicasts to all); otherwise the thread only arrives. A group's
    // partial last chunk always goes through cp.async so that rows past the group's end read as
    // zeros. All CTAs of a cluster walk the same group, so they take the same branch.
    auto issue_identity_tma = [&](const TileInfo& cur, int s, int64_t row0, bool a_tma, bool b_tma,
                                  bool no_loads) {
      if (pt == 0) {
        if (no_loads) {
          mbar_arrive(full_bar(s));
        } else if (a_tma || b_tma) {
          const int cols = a_tma ? BM : BN;
          const uint32_t dst0 = a_tma ? stage_a(s) : stage_b(s);
          const int col0 = a_tma ? cur.m0 : cur.n0;
          mbar_arrive_expect_tx(full_bar(s), a_tma ? Cfg::kABytes : Cfg::kBBytes);
          if constexpr (CS > 1) {
            // Every CTA needs these same columns (A shared along N: same m0; B shared along M:
            // same n0): rank r loads 1/CS of the 64-column boxes, each multicast to all.
            // (A 64 x 64 box fills 64 rows of a block; BK = 128 takes two per block.)
            const int part = cols / (64 * CS);  // 64-column blocks per CTA (host: cols % (64 CS) == 0)
            for (int q = rank * part; q < (rank + 1) * part; ++q)
#pragma unroll
              for (int h = 0; h < BK / 64; ++h)
                tma_load_2d_mc(dst0 + q * kBlockBytes + h * 64 * kSpanBytes, &tma_map, col0 + q * 64,
                               static_cast<int>(row0) + 64 * h, full_bar(s), static_cast<uint16_t>((1u << CS) - 1u));
          } else {
            for (int q = 0; q < cols / 64; ++q)
#pragma unroll
              for (int h = 0; h < BK / 64; ++h)
                tma_load_2d(dst0 + q * kBlockBytes + h * 64 * kSpanBytes, &tma_map, col0 + q * 64,
                            static_cast<int>(row0) + 64 * h, full_bar(s));
          }
        } else {
          mbar_arrive(full_bar(s));
        }
      }
    };

    // Lean producer loop (fewer instructions and no L2 round trip per chunk): the tile is
    // looked up only when the producer enters it (the earlier loop recomputed tile_info, three
    // integer divisions and two offset loads, every chunk); the row indices
    // load without branches from a clamped address (31-bit row numbers: R < 2^31) and rows
    // past the tile's end are masked where the copies are issued (so the loads' latency
    // overlaps the ring wait); the TMA / cp.async choice is taken once per side, not per row.
    auto load_rows_lean = [&](const TileInfo& t, int c, int (&xa)[kRowsPerThread],
                              int (&xb)[kRowsPerThread]) {
      const int pc = c + t.rot < t.nch ? c + t.rot : c + t.rot - t.nch;
      // Rows < 2^31 (entry point), so these unsigned sums (< 2^31 + BK) cannot wrap.
      const unsigned e0 = static_cast<unsigned>(t.end);  // > t.start: the tile has rows
      const unsigned base = static_cast<unsigned>(t.start) + static_cast<unsigned>(pc * BK + row_in);
#pragma unroll
      for (int j = 0; j < kRowsPerThread; ++j) {
        const unsigned r = base + 16u * j;
        const unsigned rc = r < e0 ? r : e0 - 1u;  // a valid index entry; masked at use if r >= e0
        xa[j] = p.a_rows ? __ldg(p.a_rows + rc) : static_cast<int>(r);
        xb[j] = p.b_rows ? __ldg(p.b_rows + rc) : static_cast<int>(r);
      }
    };
    settle();
    int ia[kRowsPerThread], ib[kRowsPerThread];
    if (slot < p.num_units) load_rows_lean(ti, chunk, ia, ib);
    int s = 0;            // ring stage of this chunk
    uint32_t phase = 0;   // and its phase
    while (slot < p.num_units) {
      const TileInfo cur = ti;
      const int cur_chunk = chunk;
      // Advance (a new tile only past this one's last chunk) and load the next chunk's row
      // indices before waiting on the ring.
      if (++chunk >= ti.nch) {
        slot += slot_step;
        chunk = 0;
        settle();
      }
      int na[kRowsPerThread], nb[kRowsPerThread];
      if (slot < p.num_units) load_rows_lean(ti, chunk, na, nb);

      mbar_wait(empty_bar(s), phase ^ 1u);

      const int pc = cur_chunk + cur.rot < cur.nch ? cur_chunk + cur.rot : cur_chunk + cur.rot - cur.nch;
      const int64_t row0 = cur.start + static_cast<int64_t>(pc) * BK;
      const bool full = row0 + BK <= cur.end;
      const bool no_loads = p.debug & 64;
      const bool a_tma = full && p.tma_side == 1;
      const bool b_tma = full && p.tma_side == 2;
      issue_identity_tma(cur, s, row0, a_tma, b_tma, no_loads);
      // This thread's row j: rbase + 16 j (unsigned: no wrap below 2^31 + BK).
      const unsigned rbase = static_cast<unsigned>(row0) + static_cast<unsigned>(row_in);
      const unsigned e0 = static_cast<unsigned>(cur.end);
      if (!a_tma && !no_loads)
        gather_chunk<BM / 64, kBlockBytes>(stage_a(s) + row_off, p.a + cur.m0 + piece * 8, ia, p.M, p.a_num_rows,
                                           rbase, e0);
      if (!b_tma && !no_loads)
        gather_chunk<BN / 64, kBlockBytes>(stage_b(s) + row_off, p.b + cur.n0 + piece * 8, ib, p.N, p.b_num_rows,
                                           rbase, e0);
      cp_async_arrive_noinc(full_bar(s));
      if (++s == kStages) {
        s = 0;
        phase ^= 1u;
      }
#pragma unroll
      for (int j = 0; j < kRowsPerThread; ++j) {
        ia[j] = na[j];
        ib[j] = nb[j];
      }
    }

    // Keep the CTA alive until our copies have landed (consumers wait on them anyway).
    asm volatile("cp.async.wait_all;" ::: "memory");
  } else {
    // ================= consumers: wgmma + fp32 epilogue =================
    if constexpr (P::DEFER_TAIL) setmaxnreg_inc<216>();
    if constexpr (BN == 384) setmaxnreg_inc<232>();  // 192 accumulators
    const int cw = wg - 1;             // which half (BM/2 rows) of the tile
    const int t = threadIdx.x & 127;
    const int warp = t >> 5, lane = t & 31;
    float acc[Cfg::kMBlocks][Cfg::kAccRegs];
    // A bf16 column pass of kCols columns from n (tile rows from m, group g), staged at buf as 64 x 64 boxes,
    // out by TMA (one thread); TRANS: box q holds out^T's rows n + 64 q.
    auto store_pass = [&](auto cols, uint32_t buf, int g, int m, int n) {
      if (p.debug & 8192) {  // diagnostic: this CTA's own tile of group 0, rewritten every tile (stays in L2)
        const int r = static_cast<int>(blockIdx.x);
        g = 0;
        m = (r % p.tiles_m) * BM + (m % BM);
        n = (r / p.tiles_m % p.tiles_n) * BN + (n % BN);
      }
#pragma unroll
      for (int q = 0; q < decltype(cols)::value / 64; ++q) {
        if constexpr (TRANS) tma_store_2d(&out_map, buf + q * (64 * 128), m, g * p.N + n + 64 * q);
        else tma_store_2d(&out_map, buf + q * (64 * 128), n + 64 * q, g * p.M + m);
      }
      bulk_commit();
    };
    // DEFER_TAIL: a bf16 tile's last column pass (packed pairs) and where it goes (held_g < 0: none held).
    constexpr int kTailCols = Cfg::kPassColsBf16;
    uint32_t held[P::DEFER_TAIL ? kTailCols / 4 : 1] = {};
    int held_g = -1, held_m = 0, held_n = 0;
    auto flush_held = [&]() {  // the whole warpgroup: the held pass through the staging buffer, out by TMA
      const uint32_t buf = staging_base + cw * (64 * kTailCols * 2);
      StagedTile<kTailCols>::template write<64, true, TRANS>([&](int k) { return held[k]; }, buf, cw, t == 0);
      if (t == 0) store_pass(std::integral_constant<int, kTailCols>{}, buf, held_g, held_m, held_n);
      held_g = -1;
    };
    // Ring position (stage, phase), stepped per chunk instead of it % kStages, it / kStages.
    int stage = 0;
    uint32_t phase = 0;
    // wgmma descriptors of stage 0 (this warpgroup's A blocks, B); stage s and k16 step kk add their
    // byte offsets / 16 to the start-address field (shared addresses < 256 KiB: the 14-bit field
    // never carries), so the chunk loop does not rebuild them: ~70 instead of ~100 SASS instructions
    // a chunk, and the full kernel 7-13 % faster (session 6 run 6, against the per-chunk rebuild).
    const uint64_t desc_a0 = make_desc_mn_sw128(stage_a(0) + cw * Cfg::kMBlocks * kBlockBytes, kBlockBytes, 1024);
    const uint64_t desc_b0 = make_desc_mn_sw128(stage_b(0), kBlockBytes, 1024);
    auto release = [&](int s) {
      if (t == 0) {
        if constexpr (CS > 1) {
#pragma unroll
          for (int c = 0; c < CS; ++c) mbar_arrive_cluster(empty_bar(s), c);
        } else {
          mbar_arrive(empty_bar(s));
        }
      }
    };
    if ((p.debug & 8) && (slot0 & 1) && slot0 < p.num_units) {
      // Experiment: offset odd CTAs (clusters) by about half a tile so that the epilogues of
      // neighbouring CTAs, whose tiles have the same length, stop coinciding.
      const TileInfo first = tile_info<BM, BN, CS, BK>(p, slot0, rank);
      for (int c = 0; c < num_chunks<BK>(first) * (BK / 64); c += 4) __nanosleep(1000);
    }
    for (int slot = slot0; slot < p.num_units; slot += slot_step) {
      const TileInfo ti = tile_info<BM, BN, CS, BK>(p, slot, rank);
      const int nch = num_chunks<BK>(ti);
      if (P::DEFER_TAIL && nch == 0 && held_g >= 0) flush_held();  // no chunk to hide it behind
#pragma unroll
      for (int mb = 0; mb < Cfg::kMBlocks; ++mb)
#pragma unroll
        for (int i = 0; i < Cfg::kAccRegs; ++i) acc[mb][i] = 0.f;
      int prev_s = -1;
      for (int c = 0; c < nch; ++c) {
        const int s = stage;
        mbar_wait(full_bar(s), phase);
        // cp.async (generic proxy) writes -> wgmma (async proxy) reads. (debug bit 5 drops it: timing
        // only. Without it the kernel measured the same, session 7 run 6: runs 3-4's 5-12 % came from
        // the A/B's fixed order.)
        if (!(p.debug & 32)) fence_proxy_async_smem();
        if (!(p.debug & 2)) {
#pragma unroll
          for (int mb = 0; mb < Cfg::kMBlocks; ++mb)
#pragma unroll
            for (int i = 0; i < Cfg::kAccRegs; ++i) cute::warpgroup_fence_operand(acc[mb][i]);
          cute::warpgroup_arrive();
          const uint64_t stage_off = static_cast<uint64_t>(s) * (Cfg::kStageBytes >> 4);
#pragma unroll
          for (int kk = 0; kk < BK / 16; ++kk) {
            // 16 reduction rows = two 8-row groups of 1024 bytes.
            const uint64_t db = desc_b0 + stage_off + (kk * 2048 >> 4);
#pragma unroll
            for (int mb = 0; mb < Cfg::kMBlocks; ++mb) {
              const uint64_t da = desc_a0 + stage_off + ((mb * kBlockBytes + kk * 2048) >> 4);
              if constexpr (BN == 384) {  // two n192 halves: columns 0-191 in registers 0-95, 192-383 in 96-191
                wgmma_call<192>(da, db, acc[mb], std::make_integer_sequence<int, 96>{});
                wgmma_call<192>(da, db + (3 * kBlockBytes >> 4), acc[mb] + 96, std::make_integer_sequence<int, 96>{});
              } else {
                wgmma_call<BN>(da, db, acc[mb], std::make_integer_sequence<int, Cfg::kAccRegs>{});
              }
            }
          }
          cute::warpgroup_commit_batch();
        }
        // The previous tile's held pass leaves while this tile's first chunk of wgmma runs.
        if (P::DEFER_TAIL && c == 0 && held_g >= 0) flush_held();
        if (P::PEND == 1 && !(p.debug & 128)) {
          // Keep this chunk's wgmma in flight and release the previous chunk's stage (its
          // wgmma are done). Measured faster than releasing each stage right after a
          // wait_group 0 (debug bit 7), which idles the tensor cores between chunks.
          cute::warpgroup_wait<1>();
#pragma unroll
          for (int mb = 0; mb < Cfg::kMBlocks; ++mb)
#pragma unroll
            for (int i = 0; i < Cfg::kAccRegs; ++i) cute::warpgroup_fence_operand(acc[mb][i]);
          if (prev_s >= 0) release(prev_s);
          prev_s = s;
        } else {
          cute::warpgroup_wait<0>();
#pragma unroll
          for (int mb = 0; mb < Cfg::kMBlocks; ++mb)
#pragma unroll
            for (int i = 0; i < Cfg::kAccRegs; ++i) cute::warpgroup_fence_operand(acc[mb][i]);
          release(s);
        }
        if (++stage == kStages) {
          stage = 0;
          phase ^= 1u;
        }
      }
      cute::warpgroup_wait<0>();
#pragma unroll
      for (int mb = 0; mb < Cfg::kMBlocks; ++mb)
#pragma unroll
        for (int i = 0; i < Cfg::kAccRegs; ++i) cute::warpgroup_fence_operand(acc[mb][i]);
      // The stage still held (chunk nch - 1). PEND 0 holds none.
      if (prev_s >= 0) release(prev_s);

      if (p.debug & 1) continue;
      if (p.accumulate && nch == 0) continue;  // nothing to add: leave out[g] untouched
      if constexpr (P::STAGED) {
        if (P::TMA_STORE && p.out_bf16 != nullptr) {
          // One thread of the warpgroup stores its 64 rows as swizzled 64 x 64 boxes (out_map: out as
          // [G * M, N]), kCols columns a pass, each pass after the buffer's previous stores read it.
          constexpr int kCols = Cfg::kPassColsBf16;
          // DBUF: pass k in half k % 2 of the warpgroup's 16 KiB, after pass k - 2's reads (debug bit 14: after k - 1's).
          const uint32_t buf0 = staging_base + cw * (P::DBUF ? 16384 : 64 * kCols * 2);
          const int reads_left = P::DBUF && !(p.debug & 16384) ? 1 : 0;
          static_assert(!P::DBUF || (BN / kCols) % 2 == 0, "alternating bf16 passes: an even count");
          const bool issuer = t == 0;
#pragma unroll
          for (int pass = 0; pass < BN / kCols; ++pass) {
            const uint32_t buf = buf0 + (P::DBUF ? (pass % 2) * 8192 : 0);
            if (P::DEFER_TAIL && pass > 0 && pass == BN / kCols - 1) {  // held until the next tile's first chunk
#pragma unroll
              for (int k = 0; k < kCols / 4; ++k)
                held[k] = pack_bf16x2(acc[0][pass * (kCols / 2) + 2 * k], acc[0][pass * (kCols / 2) + 2 * k + 1]);
              held_g = ti.group;
              held_m = ti.m0 + cw * 64;
              held_n = ti.n0 + pass * kCols;
              break;
            }
            // Accumulator register v holds column v / 2 of the fragment's 8-column groups.
            StagedTile<kCols>::template write<64, false, TRANS>(
                [&](int v) { return acc[0][pass * (kCols / 2) + v]; }, buf, cw, issuer, reads_left);
            if (issuer)
              store_pass(std::integral_constant<int, kCols>{}, buf, ti.group, ti.m0 + cw * 64, ti.n0 + pass * kCols);
          }
          continue;
        }
        if (p.out_bf16 != nullptr) {
          // Lane l < 16 of warp w copies staging row 16 w + l (one 2·BN-byte row of out) after
          // StagedTile::write has waited for its previous copies to read the buffer.
          using Tile = StagedTile<BN>;
          const uint32_t buf = staging_base + cw * 64 * Tile::kRowBytes;
          const bool issuer = lane < 16;
          Tile::write([&](int v) { return acc[0][v]; }, buf, cw, issuer);
          if (issuer) {
            const int srow = warp * 16 + lane;
            const int64_t orow = static_cast<int64_t>(ti.group) * p.M + ti.m0 + cw * 64 + srow;
            bulk_store_s2g(p.out_bf16 + orow * p.N + ti.n0, buf + srow * Tile::kRowBytes, BN * 2);
            bulk_commit();
          }
          continue;
        }
        if constexpr (P::STAGED_F32) {
          // fp32: columns [kHalf * half, kHalf * (half + 1)) per pass (each after the previous one's copies
          // have read the buffer). TMA_STORE: kHalf/32 boxes of 64 rows x 32 floats (128-byte rows, 128B
          // swizzle: 16-byte piece j of row r at j ^ (r % 8)) stored or reduce-added (accumulate) by one
          // thread (out_map: out as fp32 [G * M, N], 32 x 64 boxes); else rows of pitch 2 BN + 16 bytes
          // (the bf16 tile's), one bulk copy / add per row by lanes 0-15. v2 stores: a warp's 8 rows x
          // 32 bytes hit 2 wavefronts either way. TRANS: out^T's boxes, 64 rows (n) x 32 floats (m) each, box
          // 2 (n / 64) + m / 32 of the pass; a thread's two columns are two rows there, so scalar stores (for
          // each, the warp's 8 m x 4 n land in 8 distinct 16-byte pieces: no conflict).
          // DBUF (not TRANS, whose boxes are 64 tile columns wide): 32-column passes alternating between the two
          // 8 KiB halves of the warpgroup's 16 KiB, each after pass k - 2's reads, as the bf16 passes do.
          constexpr bool kAlt = P::DBUF && !TRANS;
          constexpr int kHalf = kAlt ? 32 : Cfg::kPassColsF32;  // columns a pass (a half unless SPLIT)
          constexpr bool kTma = P::TMA_STORE;
          constexpr uint32_t kPitch = StagedTile<BN>::kRowBytes;
          // (1024-aligned)
          const uint32_t buf0 = staging_base + cw * (kAlt ? 16384 : kTma ? 64 * kHalf * 4 : 64 * kPitch);
          // an even pass count: a tile's first pass takes the half its predecessor's last pass did not
          static_assert(!kAlt || (BN / kHalf) % 2 == 0, "alternating fp32 passes");
          const int reads_left = kAlt && !(p.debug & 16384) ? 1 : 0;  // as the bf16 passes' (debug bit 14)
          const bool issuer = kTma ? t == 0 : lane < 16;
          const int srow = warp * 16 + lane;  // per-row form: the row lane l < 16 copies
          const int64_t orow = static_cast<int64_t>(ti.group) * p.M + ti.m0 + cw * 64 + (kTma ? 0 : srow);
#pragma unroll
          for (int half = 0; half < BN / kHalf; ++half) {
            const uint32_t buf = buf0 + (kAlt ? (half % 2) * 8192 : 0);
            if (issuer) bulk_wait_read(reads_left);  // the pass before (kAlt: before last) has read this buffer
            named_bar_sync(1 + cw, 128);
#pragma unroll
            for (int jj = 0; jj < kHalf / 8; ++jj)
#pragma unroll
              for (int h = 0; h < 2; ++h) {
                const int v = 4 * (half * (kHalf / 8) + jj) + 2 * h;
                const int r = warp * 16 + (lane >> 2) + 8 * h, col = 8 * jj + 2 * (lane & 3);  // col in the half
                if constexpr (TRANS) {
#pragma unroll
                  for (int e = 0; e < 2; ++e) {
                    const int c = col + e;
                    const uint32_t a_t = buf + ((c / 64) * 2 + r / 32) * (64 * 128) + f32_box_offset(c % 64, r % 32);
                    asm volatile("st.shared.f32 [%0], %1;" ::"r"(a_t), "f"(acc[0][v + e]) : "memory");
                  }
                } else {
                  uint32_t addr;
                  if constexpr (kTma)
                    addr = buf + (col / 32) * (64 * 128) + f32_box_offset(r, col % 32);
                  else
                    addr = buf + r * kPitch + col * 4;
                  asm volatile("st.shared.v2.f32 [%0], {%1, %2};" ::"r"(addr), "f"(acc[0][v]), "f"(acc[0][v + 1])
                               : "memory");
                }
              }
            fence_proxy_async_smem();
            named_bar_sync(1 + cw, 128);
            if (issuer) {
              if constexpr (TRANS) {
#pragma unroll
                for (int q = 0; q < kHalf / 32; ++q) {  // box q: out^T rows n + 64 (q / 2), columns m + 32 (q % 2)
                  const int m = ti.m0 + cw * 64 + 32 * (q % 2);
                  const int row = ti.group * p.N + ti.n0 + half * kHalf + 64 * (q / 2);
                  if (p.accumulate) tma_reduce_add_2d(&out_map, buf + q * (64 * 128), m, row);
                  else tma_store_2d(&out_map, buf + q * (64 * 128), m, row);
                }
              } else if constexpr (kTma) {
#pragma unroll
                for (int q = 0; q < kHalf / 32; ++q) {
                  const uint32_t src = buf + q * (64 * 128);
                  const int col = ti.n0 + half * kHalf + 32 * q;
                  if (p.accumulate) tma_reduce_add_2d(&out_map, src, col, static_cast<int>(orow));
                  else tma_store_2d(&out_map, src, col, static_cast<int>(orow));
                }
              } else {
                float* dst = p.out + orow * p.N + ti.n0 + half * kHalf;
                if (p.accumulate) bulk_reduce_add_f32_s2g(dst, buf + srow * kPitch, kHalf * 4);
                else bulk_store_s2g(dst, buf + srow * kPitch, kHalf * 4);
              }
              bulk_commit();
            }
          }
        }
      }
      // Epilogue. Accumulator fragment of wgmma m64nBN (fp32): register 4j + 2h + e holds
      // row 16 warp + lane/4 + 8h, column 8j + 2 (lane % 4) + e. (STAGED_F32 has done every case.)
#pragma unroll
      for (int mb = 0; mb < (P::STAGED_F32 ? 0 : Cfg::kMBlocks); ++mb) {
        const int64_t orow = static_cast<int64_t>(ti.group) * p.M + ti.m0 + (cw * Cfg::kMBlocks + mb) * 64 +
                             warp * 16 + (lane >> 2);
        const int64_t obase = orow * p.N + ti.n0 + 2 * (lane & 3);
        float* base = p.out + obase;
        const float* a_ = acc[mb];
        if (p.out_bf16 != nullptr) {
          // bf16: the 4 lanes of a quad transpose their packed pairs of 4 column groups (3 shuffle
          // rounds) so that each lane stores 8 consecutive columns (16 bytes) and a row's 64 bytes go
          // out in one instruction. (Storing each lane's 4-byte pair directly, half-sector writes, made
          // dW1 12% slower than the fp32 store on an H200.)
          const int q = lane & 3;
          __nv_bfloat16* bbase = p.out_bf16 + orow * p.N + ti.n0;
#pragma unroll
          for (int h = 0; h < 2; ++h)
#pragma unroll
            for (int g4 = 0; g4 < BN / 32; ++g4) {
              uint32_t own[4], Q[4] = {0u, 0u, 0u, 0u};
#pragma unroll
              for (int jj = 0; jj < 4; ++jj) own[jj] = pack_bf16x2(a_[4 * (4 * g4 + jj) + 2 * h], a_[4 * (4 * g4 + jj) + 2 * h + 1]);
#pragma unroll
              for (int r = 0; r < 4; ++r) {
                // round r: lane s sends own[(s + r) & 3] to lane (s + r) & 3, which files it as Q[s]
                const int send = (q + r) & 3, from = (q - r) & 3;
                const uint32_t v = send == 0 ? own[0] : send == 1 ? own[1] : send == 2 ? own[2] : own[3];
                const uint32_t got = r == 0 ? v : __shfl_sync(0xffffffffu, v, (lane & ~3) | from);
#pragma unroll
                for (int i = 0; i < 4; ++i) Q[i] = i == from ? got : Q[i];
              }
              *reinterpret_cast<uint4*>(bbase + static_cast<int64_t>(8 * h) * p.N + 8 * (4 * g4 + q)) =
                  make_uint4(Q[0], Q[1], Q[2], Q[3]);
            }
        } else if (p.accumulate) {
          // Loads of a batch are all issued before its stores, so their latencies overlap.
          constexpr int kBatch = 4;
#pragma unroll
          for (int j0 = 0; j0 < BN / 8; j0 += kBatch) {
            float2 v[kBatch][2];
#pragma unroll
            for (int j = 0; j < kBatch; ++j)
#pragma unroll
              for (int h = 0; h < 2; ++h)
                v[j][h] = *reinterpret_cast<const float2*>(base + static_cast<int64_t>(8 * h) * p.N + 8 * (j0 + j));
#pragma unroll
            for (int j = 0; j < kBatch; ++j)
#pragma unroll
              for (int h = 0; h < 2; ++h) {
                float2* dst = reinterpret_cast<float2*>(base + static_cast<int64_t>(8 * h) * p.N + 8 * (j0 + j));
                *dst = make_float2(v[j][h].x + a_[4 * (j0 + j) + 2 * h], v[j][h].y + a_[4 * (j0 + j) + 2 * h + 1]);
              }
          }
        } else {
#pragma unroll
          for (int j = 0; j < BN / 8; ++j) {
#pragma unroll
            for (int h = 0; h < 2; ++h) {
              float2* dst = reinterpret_cast<float2*>(base + static_cast<int64_t>(8 * h) * p.N + 8 * j);
              *dst = make_float2(a_[4 * j + 2 * h], a_[4 * j + 2 * h + 1]);
            }
          }
        }
      }
    }
    if (P::DEFER_TAIL && held_g >= 0) flush_held();  // the last tile's held pass
    if constexpr (P::STAGED) {
      if (lane < 16) bulk_wait_all();  // this lane's last bulk copies (stores or adds) have landed
    }
  }
  // With a cluster, no CTA may exit while a peer can still arrive on its barriers or multicast
  // into its shared memory.
  if constexpr (CS > 1) cluster_sync();
}

}  // namespace pk::sm90::kgrouped
