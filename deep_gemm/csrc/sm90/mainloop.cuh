// Mainloop pieces of the sm90 m-grouped GEMM family (one persistent, warp-specialized kernel):
//
//   warpgroup 0  producer: A rows gathered by all 128 threads with 16-byte cp.async (8 threads
//                per 128-byte row, 16 rows a pass, written in the 128B-swizzled K-major layout
//                wgmma reads), B (weights) by TMA issued from thread 0; one full barrier per
//                stage completes on 128 cp.async arrivals + the TMA transaction bytes. With
//                contiguous A rows (AMode::kContiguousTma) thread 0 loads A by TMA too (the same
//                swizzled layout) and the barrier completes on its transaction bytes alone.
//   warpgroups 1,2  consumers: each owns 64 rows of the 128-row tile and issues
//                wgmma.m64nBNk16 (bf16 -> fp32) from shared memory, keeping one k-block of
//                MMAs in flight and releasing the previous stage after wgmma.wait_group 1.
//   warpgroup 3  (GemmConfig EpiWG_ only: the defaults of GEMM 1 and dH) epilogue warps: the consumers stage
//                each finished tile (bf16) in shared memory and go on; these warps do the epilogue's
//                math and stores while the next tile's MMAs run.
//
// B comes either K-major ([E, N, K], e.g. w13 and w2 in the forward) or MN-major ([E, K, N],
// e.g. w2 and w13 read transposed in the backward); the MN-major smem tile is BN/64 chunks of
// 64 (N) x 64 (K), each one TMA box, matching cute's Layout_MN_SW128 atoms tiled K-first.
#pragma once
#include <cstdint>
#include <type_traits>
#include <cuda_bf16.h>
#include <cute/tensor.hpp>
#include <cute/atom/mma_atom.hpp>
#include <cute/arch/mma_sm90.hpp>
#include <cute/atom/mma_traits_sm90_gmma.hpp>
#include "cluster.cuh"
#include "ptx.cuh"
#include "scheduler.cuh"

namespace pk::sm90 {

constexpr int kBM = 128;
constexpr int kBK = 64;

// Timing-diagnostic builds only (ci/build_diag_libraries.sh; never in a wheel): PK_SM90_DIAG_NO_MMA drops the
// consumers' wgmma (stages are taken and released as a cluster's empty m-tile does), PK_SM90_DIAG_NO_LOADS
// the producers' copies (each stage's full barrier completes with no bytes). Outputs are garbage; the
// time says what the loads alone, or the MMAs and epilogue alone, cost.
#ifdef PK_SM90_DIAG_NO_MMA
constexpr bool kDiagNoMma = true;
#else
constexpr bool kDiagNoMma = false;
#endif
#ifdef PK_SM90_DIAG_NO_LOADS
constexpr bool kDiagNoLoads = true;
#else
constexpr bool kDiagNoLoads = false;
#endif
// PK_SM90_DIAG_NO_PROXY_FENCE drops the consumers' per-k-block proxy fence (MEMBAR.ALL.CTA +
// FENCE.VIEW.ASYNC.S in SASS): what it costs the wait_group 1 forms, whose previous k-block's wgmma are in
// flight when it runs. Racy where A comes by cp.async; time only.
#ifdef PK_SM90_DIAG_NO_PROXY_FENCE
constexpr bool kDiagNoProxyFence = true;
#else
constexpr bool kDiagNoProxyFence = false;
#endif

// PK_SM90_DIAG_RING_TIMES (timing-diagnostic builds only): where a stage's round trip goes, from clock64 stamps of
// one producer thread (thread 0) and one consumer thread (the first consumer warpgroup's thread 0; the 2-CTA cluster
// forms are not stamped). Counters (per translation unit; pk_sm90_diag_ring_stats in api/sm90_moe.cu reads GEMM 1's
// and dH's): [0] producer cycles waiting for a free stage, [1] producer cycles from the free stage to its copies and
// arrival issued, [2] stages issued, [3] consumer cycles waiting for a full stage, [4] k-blocks consumed, [5] k-blocks
// the consumer had to wait for (> 64 cycles), [6] for those, cycles from the producer's "issued" stamp to the data's
// arrival (the flight), [7] unused. The producer's per-stage stamps sit in shared memory after the scheduler's table
// (GemmConfig::kDiagBytes, diag_stamps).
#ifdef PK_SM90_DIAG_RING_TIMES
constexpr bool kDiagRingTimes = true;
static __device__ unsigned long long g_diag_ring[8];
#else
constexpr bool kDiagRingTimes = false;
#endif
__device__ __forceinline__ long long diag_clock() {
  long long t;
  asm volatile("mov.u64 %0, %%clock64;" : "=l"(t)::"memory");
  return t;
}
__device__ __forceinline__ void diag_ring_add(int i, long long v) {
#ifdef PK_SM90_DIAG_RING_TIMES
  atomicAdd(&g_diag_ring[i], static_cast<unsigned long long>(v));
#endif
}

// How rows of A are found: sorted row p of the group layout reads A row ...
enum class AMode : int {
  kContiguous = 0,     // ... p                    (h_sorted, dz_sorted, public contiguous/masked), cp.async
  kGatherPair = 1,     // ... index[p] / topk      (x or dy gathered by token, index = sorted_pair)
  kContiguousTma = 2,  // ... p, the 128 x 64 tile by one TMA box (A dense [rows, K], 16-byte aligned):
                       // no per-thread cp.async issue. Rows past the group's end are the next
                       // group's (or TMA's zero fill past the tensor): they only reach output rows
                       // that no epilogue stores.
};


// How the B tile of one k-block is fetched.
enum class BMode : int {
  kKMajor = 0,       // one box {64, BN} at (k, n_block*BN, e)
  kKMajorSplit = 1,  // two boxes {64, BN/2} at (k, n_block*BN/2, e) and (k, split + n_block*BN/2, e)
  kMNMajor = 2,      // BN/64 boxes {64 (n), 64 (k)} at (n_block*BN + 64c, k, e)
};

// kPingPong = false (cooperative): both consumer warpgroups work on one 128 x BN tile, 64 rows
// each, and run their epilogues at the same time. kPingPong = true: each consumer warpgroup owns
// whole 128 x BN tiles (two m64 wgmmas per k-step) and the two alternate, so that one's epilogue
// runs while the other's MMAs do (CTA-local tile j goes to warpgroup j % 2).
//
// StagedStore_ (cooperative only): the epilogue writes the bf16 tile into a shared-memory staging
// buffer (kBM rows of BN + 8 elements; the 16-byte pad per row keeps stmatrix conflict-free) and
// stores it with one bulk copy per row, so the consumers start the next tile's MMAs while the copy
// engine drains the previous tile (EpiStoreBf16Staged in epilogue.cuh).
//
// Cluster_ (cooperative only): 2-CTA clusters walking PairScheduler's units: two m-tiles of one group,
// same n-block, where each CTA loads half of every B (weight) k-block and multicasts it to both, so B
// crosses L2 -> SM once per pair instead of once per CTA (A is each CTA's own); or, for an odd last
// m-tile of a group, that m-tile at two n-blocks, each CTA loading its own B. A stage may be
// refilled only when the consumers of both CTAs have released it (the peer may write into it), so
// the empty barriers count both CTAs' consumer warps whatever the unit. A tail unit's second slot
// may be idle (odd n-block count): that CTA loads nothing, skips its MMAs and stores nothing.
//
// EpiWarps_ = n > 0 (cooperative only): the epilogue runs in the last n warps of warpgroup 0 while
// the first 4 - n gather A and issue B. The consumers write the accumulator tile (bf16) into the
// staging buffer and go straight to the next tile's MMAs; the epilogue warps read it back and do the
// epilogue's math and stores while those run (EpiSwiGLUBwdWarps in epilogue.cuh).
//
// EpiWG_ (cooperative, EpiWarps_ = 0): a fourth warpgroup of 4 epilogue warps (512 threads) next to a whole
// warpgroup of gathering producers; setmaxnreg splits the registers (launch bound 128 a thread). Each
// 128 x 256 tile is then two m64n128 wgmmas a k-step (see MmaOp).
//
// Wait0_ (cooperative only): each consumer warpgroup waits for its k-block's MMAs (wgmma.wait_group 0)
// and releases that stage at once, instead of keeping one k-block of MMAs in flight and releasing the
// previous stage only after the next stage's data has arrived. The tensor pipe idles briefly between
// k-blocks, but no stage sits idle in the consumers while they wait for data, so the producer keeps
// one more stage of loads in flight (what a latency-bound gather needs).
template <int BN_, int Stages_, BMode BMODE_, bool PingPong_ = false, bool StagedStore_ = false,
          bool Cluster_ = false, int EpiWarps_ = 0, bool Wait0_ = false, bool EpiWG_ = false>
struct GemmConfig {
  static constexpr int BN = BN_;
  static constexpr int kStages = Stages_;
  static constexpr BMode kBMode = BMODE_;
  static constexpr bool kBMN = BMODE_ == BMode::kMNMajor;
  static constexpr bool kPingPong = PingPong_;
  static constexpr int kWgRows = kPingPong ? 128 : 64;  // rows of the tile one warpgroup computes
  static constexpr int kMI = kWgRows / 64;              // m64 blocks per warpgroup
  static constexpr bool kCluster = Cluster_;
  static constexpr bool kWait0 = Wait0_;
  static_assert(!(Wait0_ && PingPong_), "wait_group 0 release is written for the cooperative layout");
  static_assert(!(Cluster_ && PingPong_), "2-CTA clusters are written for the cooperative layout");
  static constexpr int kConsumerArrivals = (kPingPong ? 4 : 8) * (kCluster ? 2 : 1);  // warps releasing a stage
  using T = cute::bfloat16_t;
  using SmemLayoutA = decltype(cute::tile_to_shape(cute::GMMA::Layout_K_SW128_Atom<T>{},
                                                   cute::Shape<cute::Int<kWgRows>, cute::Int<kBK>>{}));
  using SmemLayoutB = std::conditional_t<
      kBMN,
      decltype(cute::tile_to_shape(cute::GMMA::Layout_MN_SW128_Atom<T>{},
                                   cute::Shape<cute::Int<BN>, cute::Int<kBK>>{},
                                   cute::Step<cute::_2, cute::_1>{})),
      decltype(cute::tile_to_shape(cute::GMMA::Layout_K_SW128_Atom<T>{},
                                   cute::Shape<cute::Int<BN>, cute::Int<kBK>>{}))>;
  static constexpr cute::GMMA::Major kMajorB = kBMN ? cute::GMMA::Major::MN : cute::GMMA::Major::K;
  // With an epilogue warpgroup (launch bound 128 registers a thread) a 256-wide tile is two m64n128
  // wgmmas: ptxas refuses an m64n256 (128 accumulator registers in one instruction) under that bound
  // even where setmaxnreg raises it. The accumulator fragment is laid out the same either way.
  using MmaOp = std::conditional_t<
      BN == 256 && !EpiWG_, cute::SM90_64x256x16_F32BF16BF16_SS<cute::GMMA::Major::K, kMajorB>,
      std::conditional_t<BN == 192, cute::SM90_64x192x16_F32BF16BF16_SS<cute::GMMA::Major::K, kMajorB>,
                         cute::SM90_64x128x16_F32BF16BF16_SS<cute::GMMA::Major::K, kMajorB>>>;
  using TiledMma = decltype(cute::make_tiled_mma(MmaOp{}));

  static constexpr int kABytes = kBM * kBK * 2;  // 16 KiB
  static constexpr int kBBytes = BN * kBK * 2;
  static constexpr int kStageBytes = kABytes + kBBytes;
  static constexpr bool kStagedStore = StagedStore_;
  // Staged ping-pong (128 x 192 only): the staging tile's 128 rows are cut into 16 per consumer warp
  // (WarpStage in epilogue.cuh), each warp passing its 32 rows of a tile through them.
  static constexpr int kEpilogueWarps = EpiWarps_;  // warps 4-n..3 of warpgroup 0; 0 = none
  static constexpr bool kEpiWG = EpiWG_;            // warpgroup 3: four epilogue warps
  static_assert(!EpiWG_ || EpiWarps_ == 0, "the epilogue warpgroup comes with a whole warpgroup of producers");
  static constexpr int kEpilogueWarpsTotal = EpiWarps_ + 4 * kEpiWG;
  static constexpr bool kEpiWarps = kEpilogueWarpsTotal > 0;
  static constexpr int kThreads = 384 + 128 * kEpiWG;
  static_assert(EpiWarps_ >= 0 && EpiWarps_ <= 3, "epilogue warps: 0..3 of warpgroup 0's four");
  // (Their 2-CTA cluster forms, GEMM 1 5 + 16 and dH 10 + 32 + 16, ran correct and no faster in session 18's run 1:
  // removed.)
  static_assert(!(kEpiWarps && (PingPong_ || StagedStore_ || Cluster_)),
                "the epilogue warps are written for the plain cooperative layout");
  static constexpr int kProducerThreads = 128 - 32 * kEpilogueWarps;  // threads gathering A (cp.async)
  // setmaxnreg split: warpgroup 0 (producer) / each consumer warpgroup; the sum stays <= 504 (what
  // CUTLASS's splits use: a 160/176/176 split, 512, hung on the H200, the consumers' setmaxnreg.inc
  // waiting forever). The epilogue-warps form keeps the launch bound's 168 everywhere (no
  // setmaxnreg): its warpgroup 0 needs more than 152 (the one-warp gather holds 32 row offsets next
  // to the epilogue warps' code), and ptxas fits the consumers in 168.
  // With an epilogue warpgroup the launch bound is 128 a thread and setmaxnreg is required: producers 72 (the
  // 128-thread gather), consumers 160 (128 accumulators; 168 measured slower, its epilogue warps then fitting
  // only 2-row batches in 96), the epilogue warpgroup the rest of 504 (112: 4-row batches).
  static constexpr bool kSetMaxNReg = !kEpiWarps || kEpiWG;
  // fp32 accumulators a consumer thread holds: 128 in every config but ping-pong 128 x 192 (192), which
  // takes 56 / 224 (the 8-row gather fits 56 registers).
  static constexpr int kAccRegs = kWgRows * BN / 128;
  static_assert(kAccRegs <= 192, "accumulators a consumer thread");
  static constexpr int kProducerRegs = kAccRegs > 128 ? 56 : 72;
  static constexpr int kConsumerRegs = kEpiWG ? 160 : kAccRegs > 128 ? 224 : 216;
  static constexpr int kEpiWGRegs = kEpiWG ? 504 - kProducerRegs - 2 * kConsumerRegs : 0;
  static_assert(kProducerRegs + 2 * kConsumerRegs + kEpiWGRegs <= 504, "registers");
  static constexpr int kStoreRowBytes = BN * 2 + 16;  // staging row pitch (bytes)
  static constexpr int kStoreBytes = (kStagedStore || kEpiWarps) ? kBM * kStoreRowBytes : 0;
  static constexpr int kSchedInts = 3 * kMaxGroups + 1;
  static constexpr int kDiagBytes = kDiagRingTimes ? 8 * kStages + 8 : 0;  // diag_stamps (PK_SM90_DIAG_RING_TIMES)
  static constexpr int kSmemBytes = 1024 /*align slack*/ + kStages * kStageBytes + kStoreBytes +
                                    (2 * kStages + (kEpiWarps ? 4 : 2)) * 8 + kSchedInts * 4 + kDiagBytes;
  static_assert(kSmemBytes <= 227 * 1024, "shared memory");
};

// PK_SM90_DIAG_RING_TIMES: the producer's "stage s issued" stamps, after the scheduler's table (the kernel's layout:
// full, empty, done barriers, the table; kDiagBytes reserves them).
template <class Cfg>
__device__ __forceinline__ volatile long long* diag_stamps(uint64_t* full) {
  return reinterpret_cast<volatile long long*>(full + 2 * Cfg::kStages + (Cfg::kEpiWarps ? 4 : 2) +
                                               (Cfg::kSchedInts + 1) / 2);
}

// Full-barrier arrivals per stage: the cp.async producer threads + the TMA thread's expect_tx, or the
// TMA thread alone when A comes by TMA too.
template <class Cfg, AMode AM>
__host__ __device__ constexpr uint32_t full_arrivals() {
  return AM == AMode::kContiguousTma ? 1 : Cfg::kProducerThreads + 1;
}

// Everything the mainloop needs besides the B tensor map.
struct MainloopParams {
  const __nv_bfloat16* a;
  int64_t lda;        // elements
  const int* a_index; // kGatherPair: sorted_pair [rows]
  int topk;           // kGatherPair: pair -> token divisor
  int k;              // reduction length (multiple of 64)
  int n;              // GEMM output columns (B's N extent)
  int b_split;        // kKMajorSplit: row offset of the second half (I)
  int n_blocks;
};

// Tile walk of a CTA: units first_unit, first_unit + unit_step, ... of the scheduler's list. With a
// 2-CTA cluster a unit is a PairScheduler unit and cluster rank r takes its tile r. (Staged-store
// configs re-read %nctaid at each step: with 3 stages the 72-register producer otherwise spilled the
// hoisted grid stride.)
template <class Cfg>
__device__ __forceinline__ int first_unit() { return Cfg::kCluster ? blockIdx.x / 2 : blockIdx.x; }
template <class Cfg>
__device__ __forceinline__ int unit_step() {
  if constexpr (Cfg::kCluster) return grid_ctas() / 2;
  else return Cfg::kStagedStore ? grid_ctas() : static_cast<int>(gridDim.x);
}
template <class Cfg>
using SchedulerOf = std::conditional_t<Cfg::kCluster, PairScheduler, Scheduler<kBM>>;
template <class Cfg>
__device__ __forceinline__ TileCoord cta_tile(const SchedulerOf<Cfg>& sched, int unit) {
  if constexpr (Cfg::kCluster) return sched.coord(unit, static_cast<int>(cluster_ctarank()));
  else return sched.coord(unit);
}
// False only for a cluster's idle slot (an m-tile past its group's end).
__device__ __forceinline__ bool tile_has_rows(const TileCoord& c) { return c.m_block * kBM < c.rows; }

// A consumer warp releases a stage: to its own CTA, or with a cluster to both (the peer multicasts
// into this CTA's copy of the stage too).
template <class Cfg>
__device__ __forceinline__ void release_stage(uint64_t* bar) {
  if constexpr (Cfg::kCluster) {
    mbar_arrive_cluster(bar, 0);
    mbar_arrive_cluster(bar, 1);
  } else {
    mbar_arrive(bar);
  }
}

// Whether this CTA's stages receive B bytes for tile c (an idle cluster slot of a tail unit: none).
template <class Cfg>
__device__ __forceinline__ bool tile_gets_b(const TileCoord& c) {
  return !Cfg::kCluster || c.b_shared || tile_has_rows(c);
}

// This CTA's half of B tile kb, multicast into the same stage buffer of both CTAs of the pair.
template <class Cfg>
__device__ __forceinline__ void load_b_shared_half(uint32_t dst, const CUtensorMap* tmap_b, uint64_t* bar,
                                                   const MainloopParams& p, const TileCoord& c, int kb) {
  const int r = static_cast<int>(cluster_ctarank());
  constexpr uint16_t kBoth = 3;
  if constexpr (Cfg::kBMode == BMode::kKMajor) {
    tma_load_3d_mc(dst + r * (Cfg::kBBytes / 2), tmap_b, bar, kb * kBK, c.n_block * Cfg::BN + r * (Cfg::BN / 2),
                   c.group, kBoth);
  } else if constexpr (Cfg::kBMode == BMode::kKMajorSplit) {
    tma_load_3d_mc(dst + r * (Cfg::kBBytes / 2), tmap_b, bar, kb * kBK, r * p.b_split + c.n_block * (Cfg::BN / 2),
                   c.group, kBoth);
  } else {
    static_assert(Cfg::BN % 128 == 0, "MN-major B splits into two halves of 64-column boxes");
#pragma unroll
    for (int q = r * (Cfg::BN / 128); q < (r + 1) * (Cfg::BN / 128); ++q)
      tma_load_3d_mc(dst + q * (64 * kBK * 2), tmap_b, bar, c.n_block * Cfg::BN + q * 64, kb * kBK, c.group, kBoth);
  }
}

// B tile of k-block kb (TMA, issued by one thread) into stage buffer dst. When the cluster pair shares
// it (c.b_shared) this CTA loads half of it (its rank's half of the boxes; K-major B: a tensor map box
// of BN/2 rows) and multicasts it to both CTAs.
template <class Cfg>
__device__ __forceinline__ void load_b(uint32_t dst, const CUtensorMap* tmap_b, uint64_t* bar, const MainloopParams& p,
                                       const TileCoord& c, int kb) {
  if constexpr (Cfg::kCluster) {
    if (c.b_shared) {
      load_b_shared_half<Cfg>(dst, tmap_b, bar, p, c, kb);
      return;
    }
  }
  if constexpr (Cfg::kBMode == BMode::kKMajor && Cfg::kCluster) {  // (a cluster's tensor map: BN/2-row boxes)
    tma_load_3d(dst, tmap_b, bar, kb * kBK, c.n_block * Cfg::BN, c.group);
    tma_load_3d(dst + Cfg::kBBytes / 2, tmap_b, bar, kb * kBK, c.n_block * Cfg::BN + Cfg::BN / 2, c.group);
  } else if constexpr (Cfg::kBMode == BMode::kKMajor) {
    tma_load_3d(dst, tmap_b, bar, kb * kBK, c.n_block * Cfg::BN, c.group);
  } else if constexpr (Cfg::kBMode == BMode::kKMajorSplit) {
    tma_load_3d(dst, tmap_b, bar, kb * kBK, c.n_block * (Cfg::BN / 2), c.group);
    tma_load_3d(dst + Cfg::kBBytes / 2, tmap_b, bar, kb * kBK, p.b_split + c.n_block * (Cfg::BN / 2), c.group);
  } else {
#pragma unroll
    for (int q = 0; q < Cfg::BN / 64; ++q)
      tma_load_3d(dst + q * (64 * kBK * 2), tmap_b, bar, c.n_block * Cfg::BN + q * 64, kb * kBK, c.group);
  }
}

// Producer with A by TMA as well: one thread issues both tiles of every stage.
template <class Cfg>
__device__ __forceinline__ void producer_loop_tma(const SchedulerOf<Cfg>& sched, const MainloopParams& p,
                                                  const CUtensorMap* tmap_b, const CUtensorMap* tmap_a,
                                                  uint8_t* smem_a, uint8_t* smem_b, uint64_t* full,
                                                  uint64_t* empty) {
  if (threadIdx.x != 0) return;
  const int k_blocks = p.k / kBK;
  const int total = sched.total_tiles();
  const uint32_t a_base = smem_u32(smem_a), b_base = smem_u32(smem_b);
  uint32_t it = 0;
  for (int unit = first_unit<Cfg>(); unit < total; unit += Cfg::kCluster ? unit_step<Cfg>() : grid_ctas()) {
    const TileCoord c = cta_tile<Cfg>(sched, unit);
    const int row0 = c.row_begin + c.m_block * kBM;
    const bool has_rows = !Cfg::kCluster || tile_has_rows(c);
    const bool gets_b = tile_gets_b<Cfg>(c);
    for (int kb = 0; kb < k_blocks; ++kb, ++it) {
      const uint32_t s = it % Cfg::kStages;
      mbar_wait(&empty[s], ((it / Cfg::kStages) & 1) ^ 1);
      if constexpr (kDiagNoLoads) {
        mbar_arrive_expect_tx(&full[s], 0);
        continue;
      }
      mbar_arrive_expect_tx(&full[s], (has_rows ? Cfg::kABytes : 0) + (gets_b ? Cfg::kBBytes : 0));
      if (has_rows) tma_load_3d(a_base + s * Cfg::kABytes, tmap_a, &full[s], kb * kBK, row0, 0);
      if (gets_b) load_b<Cfg>(b_base + s * Cfg::kBBytes, tmap_b, &full[s], p, c, kb);
    }
  }
}

template <class Cfg, AMode AM>
__device__ __forceinline__ void producer_loop(const SchedulerOf<Cfg>& sched, const MainloopParams& p,
                                              const CUtensorMap* tmap_b, uint8_t* smem_a,
                                              uint8_t* smem_b, uint64_t* full, uint64_t* empty) {
  // Thread t copies 16-byte chunk t % 8 of rows t / 8 + kStride i (8 threads per 128-byte row piece,
  // so a warp instruction covers 4 whole pieces): 128 threads: 8 rows each; one warp: 32 rows each.
  constexpr int kStride = Cfg::kProducerThreads / 8;
  constexpr int kRows = kBM / kStride;
  const int t = threadIdx.x;  // 0 .. kProducerThreads-1
  const int chunk = t & 7;
  const int r0 = t >> 3;      // rows r0 + kStride i
  const int k_blocks = p.k / kBK;
  const int total = sched.total_tiles();
  uint32_t it = 0;
  const uint32_t a_base = smem_u32(smem_a);
  const uint32_t b_base = smem_u32(smem_b);
  const uint32_t topk = static_cast<uint32_t>(p.topk);
  const uint32_t topk_inv = 0xFFFFFFFFu / topk;  // floor(n * inv / 2^32) is n / topk or one less
  long long diag_wait = 0, diag_issue = 0, diag_n = 0;  // PK_SM90_DIAG_RING_TIMES (thread 0)
  volatile long long* diag_stamp = diag_stamps<Cfg>(full);
  for (int unit = first_unit<Cfg>(); unit < total; unit += unit_step<Cfg>()) {
    const TileCoord c = cta_tile<Cfg>(sched, unit);
    // This thread's 8 rows, computed once per tile; rows past the group's end read nothing and land as zeros.
    // The gathered rows' indices are all loaded before any is used, branch-free from a clamped valid
    // position (under `if (local < rows)` ptxas had put each load in its own branch with its division right
    // behind it: 8 dependent L2 round trips at every tile's start; session 19 runs 1-2). A tile's start is on
    // the ring's critical path: what delays its first copies stalls the consumers.
    int idx[kRows];
    if constexpr (AM == AMode::kGatherPair) {
      if (c.rows > 0) {
#pragma unroll
        for (int i = 0; i < kRows; ++i) {
          const int local = c.m_block * kBM + r0 + kStride * i;
          idx[i] = __ldg(p.a_index + c.row_begin + min(local, c.rows - 1));
        }
      }
    }
    // Each row's source pointer for the next k-block, advanced right after a stage's copies are issued, so
    // that between a stage's empty barrier and its copies there is no address arithmetic: that path is part
    // of the ring's round trip, which the 4 stages barely cover (session 19: a form with ~20 more
    // instructions there ran 8-20 % slower, run 7; this one made GEMM 1 4-7 % and dH 8 % faster, run 8).
    const __nv_bfloat16* src[kRows];
    uint32_t valid_mask = 0;
#pragma unroll
    for (int i = 0; i < kRows; ++i) {
      const int local = c.m_block * kBM + r0 + kStride * i;
      const bool valid = local < c.rows;
      int64_t row = 0;
      if constexpr (AM == AMode::kGatherPair) {
        // index / topk as a multiply-high with one correction (exact for index < 2^31, topk <= 64): the
        // compiler's division sequence (~25 instructions, a MUFU.RCP) cost ~4 % at 30B (session 19 run 6).
        const uint32_t u = static_cast<uint32_t>(idx[i]);  // >= 0: routing's pair ids
        uint32_t q = __umulhi(u, topk_inv);
        q += (u - q * topk) >= topk ? 1u : 0u;
        row = valid ? q : 0;
      } else {
        row = valid ? c.row_begin + local : 0;
      }
      valid_mask |= static_cast<uint32_t>(valid) << i;
      src[i] = p.a + row * p.lda + chunk * 8;
    }
    for (int kb = 0; kb < k_blocks; ++kb, ++it) {
      const uint32_t s = it % Cfg::kStages;
      const uint32_t round = it / Cfg::kStages;
      const long long d0 = kDiagRingTimes && t == 0 ? diag_clock() : 0;
      mbar_wait(&empty[s], (round & 1) ^ 1);
      const long long d1 = kDiagRingTimes && t == 0 ? diag_clock() : 0;
      if constexpr (kDiagNoLoads) {
        if (t == 0) mbar_arrive_expect_tx(&full[s], 0);
        cp_async_mbar_arrive_noinc(&full[s]);
        continue;
      }
      if (t == 0) {
        const bool gets_b = tile_gets_b<Cfg>(c);
        mbar_arrive_expect_tx(&full[s], gets_b ? Cfg::kBBytes : 0);
        if (gets_b) load_b<Cfg>(b_base + s * Cfg::kBBytes, tmap_b, &full[s], p, c, kb);
      }
      const uint32_t a_dst = a_base + s * Cfg::kABytes + r0 * 128;
#pragma unroll
      for (int i = 0; i < kRows; ++i) {
        const uint32_t swz = static_cast<uint32_t>((chunk ^ ((r0 + kStride * i) & 7)) << 4);
        cp_async_16(a_dst + i * kStride * 128 + swz, src[i], ((valid_mask >> i) & 1u) * 16u);
      }
      cp_async_mbar_arrive_noinc(&full[s]);
      if (kDiagRingTimes && t == 0 && !Cfg::kCluster) {
        const long long d2 = diag_clock();
        diag_wait += d1 - d0;
        diag_issue += d2 - d1;
        ++diag_n;
        diag_stamp[s] = d2;
      }
#pragma unroll
      for (int i = 0; i < kRows; ++i) src[i] += kBK;
    }
  }
  if (kDiagRingTimes && t == 0 && !Cfg::kCluster) {
    diag_ring_add(0, diag_wait);
    diag_ring_add(1, diag_issue);
    diag_ring_add(2, diag_n);
  }
  asm volatile("cp.async.wait_all;" ::: "memory");
}

// One tile's mainloop for one consumer warpgroup (cooperative: wg = 0/1 owns rows 64wg..64wg+63;
// ping-pong: the whole tile).
template <class Cfg, class Accum>
__device__ __forceinline__ void consumer_mainloop(const MainloopParams& p, uint8_t* smem_a,
                                                  uint8_t* smem_b, uint64_t* full, uint64_t* empty,
                                                  uint32_t& it, int wg, Accum& accum,
                                                  uint64_t* turn_done = nullptr, bool has_rows = true) {
  using namespace cute;
  typename Cfg::TiledMma mma;
  auto thr = mma.get_thread_slice(threadIdx.x % 128);
  const int k_blocks = p.k / kBK;
  const int lane = threadIdx.x % 32;
  if (kDiagNoMma || (Cfg::kCluster && !has_rows)) {
    // A cluster's m-tile past its group's end (or a no-MMA diagnostic build): nothing to compute; take
    // each stage (its B half came from the peer) and hand it back to both CTAs.
    for (int kb = 0; kb < k_blocks; ++kb, ++it) {
      const uint32_t s = it % Cfg::kStages;
      mbar_wait(&full[s], (it / Cfg::kStages) & 1);
      if (lane == 0) release_stage<Cfg>(&empty[s]);
    }
    // (Ping-pong, no-MMA build: the other warpgroup waits for this turn.)
    if (turn_done != nullptr && lane == 0) mbar_arrive(turn_done);
    return;
  }
  uint32_t prev = 0;
  const bool diag = kDiagRingTimes && !Cfg::kCluster && threadIdx.x == 128;
  long long diag_wait = 0, diag_flight = 0, diag_late = 0;
  volatile long long* diag_stamp = diag_stamps<Cfg>(full);
  for (int kb = 0; kb < k_blocks; ++kb, ++it) {
    const uint32_t s = it % Cfg::kStages;
    const long long d0 = diag ? diag_clock() : 0;
    mbar_wait(&full[s], (it / Cfg::kStages) & 1);
    if (diag) {
      const long long d1 = diag_clock();
      diag_wait += d1 - d0;
      if (d1 - d0 > 64) {
        ++diag_late;
        diag_flight += d1 - diag_stamp[s];
      }
    }
    if constexpr (!kDiagNoProxyFence) fence_proxy_async_smem();  // A arrived through cp.async (generic proxy); wgmma reads it
    auto* a_ptr = reinterpret_cast<typename Cfg::T*>(smem_a + s * Cfg::kABytes +
                                                     (Cfg::kPingPong ? 0 : wg * (kBM / 2) * kBK * 2));
    auto* b_ptr = reinterpret_cast<typename Cfg::T*>(smem_b + s * Cfg::kBBytes);
    Tensor sA = make_tensor(make_smem_ptr(a_ptr), typename Cfg::SmemLayoutA{});
    Tensor sB = make_tensor(make_smem_ptr(b_ptr), typename Cfg::SmemLayoutB{});
    Tensor tCrA = thr.make_fragment_A(thr.partition_A(sA));
    Tensor tCrB = thr.make_fragment_B(thr.partition_B(sB));
    warpgroup_fence_operand(accum);
    warpgroup_arrive();
#pragma unroll
    for (int k = 0; k < kBK / 16; ++k) {
      mma.accumulate_ = (kb == 0 && k == 0) ? GMMA::ScaleOut::Zero : GMMA::ScaleOut::One;
      cute::gemm(mma, tCrA(_, _, k), tCrB(_, _, k), accum);
    }
    warpgroup_commit_batch();
    if constexpr (Cfg::kWait0) {
      warpgroup_wait<0>();
      warpgroup_fence_operand(accum);
      if (lane == 0) release_stage<Cfg>(&empty[s]);
    } else {
      warpgroup_wait<1>();
      warpgroup_fence_operand(accum);
      if (kb > 0 && lane == 0) release_stage<Cfg>(&empty[prev]);
      prev = s;
    }
  }
  if (diag) {
    diag_ring_add(3, diag_wait);
    diag_ring_add(4, k_blocks);
    diag_ring_add(5, diag_late);
    diag_ring_add(6, diag_flight);
  }
  // Ping-pong: every MMA of this tile is issued, so the other warpgroup may start issuing its own
  // (they queue behind ours on the tensor cores instead of waiting for ours to drain).
  if (turn_done != nullptr && lane == 0) mbar_arrive(turn_done);
  warpgroup_wait<0>();
  warpgroup_fence_operand(accum);
  if (!Cfg::kWait0 && k_blocks > 0 && lane == 0) release_stage<Cfg>(&empty[prev]);
}

}  // namespace pk::sm90
