// The sm90 m-grouped GEMM kernel family: C[p, :] = A[row(p), :] . B[group(p)]^T (or . B[group]),
// persistent, warp-specialized (1 producer warpgroup + 2 wgmma consumer warpgroups, 384 threads,
// one CTA per SM; with Cfg::kEpiWarps the last warps of warpgroup 0, or a fourth warpgroup, run the
// epilogue), group sizes
// read on the device (see scheduler.cuh), with a pluggable epilogue (see epilogue.cuh). The same
// kernel serves the MoE forward (GEMM 1 with the SwiGLU epilogue, GEMM 2), the MoE backward (dy . W2
// with the SwiGLU backward epilogue, dz . W1) and the public bf16 m-grouped GEMMs (contiguous and
// masked layouts).
#pragma once
#include "mainloop.cuh"
#include "epilogue.cuh"

namespace pk::sm90 {

// Epilogue warps (the warp's index among them: threadIdx.x / 32 - kSkip): the consumers' tile sequence, one
// staged tile at a time.
template <class Cfg, class Epi, int kSkip>
__device__ __forceinline__ void epilogue_warps_loop(const SchedulerOf<Cfg>& sched, const EpilogueParams& ep,
                                                   uint8_t* smem_c, uint64_t* staged_full, uint64_t* staged_empty) {
  const int total = sched.total_tiles();
  int j = 0;
  for (int unit = first_unit<Cfg>(); unit < total; unit += unit_step<Cfg>(), ++j)
    Epi::template epilogue_warps_tile<Cfg::kEpilogueWarpsTotal, kSkip>(ep, cta_tile<Cfg>(sched, unit), j, smem_c,
                                                                       staged_full, staged_empty);
}

template <class Cfg, AMode AM, class Epi>
__global__ void __launch_bounds__(Cfg::kThreads, 1)
grouped_gemm_kernel(const __grid_constant__ CUtensorMap tmap_b, const __grid_constant__ CUtensorMap tmap_a,
                    const __grid_constant__ CUtensorMap tmap_out, const MainloopParams mp, const GroupInfo groups,
                    const EpilogueParams ep) {
#if defined(__CUDA_ARCH__) && (__CUDA_ARCH__ >= 900)
  extern __shared__ uint8_t smem_raw[];
  uint8_t* smem = reinterpret_cast<uint8_t*>((reinterpret_cast<uintptr_t>(smem_raw) + 1023) & ~uintptr_t(1023));
  uint8_t* smem_a = smem;
  uint8_t* smem_b = smem + Cfg::kStages * Cfg::kABytes;
  uint8_t* smem_c = smem_b + Cfg::kStages * Cfg::kBBytes;  // staging tile (kStoreBytes; 0 unless staged)
  uint64_t* full = reinterpret_cast<uint64_t*>(smem_c + Cfg::kStoreBytes);
  uint64_t* empty = full + Cfg::kStages;
  uint64_t* done = empty + Cfg::kStages;  // ping-pong: [0..1] "warpgroup w finished a mainloop"
  uint64_t* staged_full = done + 2;       // epilogue warps: the staging tile holds tile j
  uint64_t* staged_empty = done + 3;      // ... and has been read back
  int* sched_ints = reinterpret_cast<int*>(done + (Cfg::kEpiWarps ? 4 : 2));

  if (threadIdx.x == 0) {
    prefetch_tma_map(&tmap_b);
    if constexpr (AM == AMode::kContiguousTma) prefetch_tma_map(&tmap_a);
    for (int s = 0; s < Cfg::kStages; ++s) {
      mbar_init(&full[s], full_arrivals<Cfg, AM>());
      mbar_init(&empty[s], Cfg::kConsumerArrivals);  // one arrival per consumer warp of a stage
    }
    mbar_init(&done[0], 4);
    mbar_init(&done[1], 4);
    if constexpr (Cfg::kEpiWarps) {
      mbar_init(staged_full, 256);                         // every consumer thread, after its stmatrix
      mbar_init(staged_empty, 32 * Cfg::kEpilogueWarpsTotal);  // every epilogue thread, after its last read
    }
    fence_barrier_init();
  }
  SchedulerOf<Cfg> sched;
  sched.init(groups, mp.n_blocks, sched_ints);  // ends with __syncthreads (also publishes barriers)
  if constexpr (Cfg::kCluster) cluster_sync();  // the peer's barriers exist before any multicast or remote arrive

  const int wg = threadIdx.x / 128;
  if (wg == 0) {
#ifndef PK_SM90_NO_SETMAXNREG  // (diagnostic builds only: compute-sanitizer racecheck experiments)
    if constexpr (Cfg::kSetMaxNReg) setmaxnreg_dec<Cfg::kProducerRegs>();
#endif
    if constexpr (Cfg::kEpilogueWarps > 0) {
      if (threadIdx.x < Cfg::kProducerThreads) producer_loop<Cfg, AM>(sched, mp, &tmap_b, smem_a, smem_b, full, empty);
      else epilogue_warps_loop<Cfg, Epi, 4 - Cfg::kEpilogueWarps>(sched, ep, smem_c, staged_full, staged_empty);
    } else if constexpr (AM == AMode::kContiguousTma) {
      producer_loop_tma<Cfg>(sched, mp, &tmap_b, &tmap_a, smem_a, smem_b, full, empty);
    } else {
      producer_loop<Cfg, AM>(sched, mp, &tmap_b, smem_a, smem_b, full, empty);
    }
  } else if (Cfg::kEpiWG && wg == 3) {
    if constexpr (Cfg::kEpiWG) {
#ifndef PK_SM90_NO_SETMAXNREG
      setmaxnreg_dec<Cfg::kEpiWGRegs>();
#endif
      epilogue_warps_loop<Cfg, Epi, 12>(sched, ep, smem_c, staged_full, staged_empty);  // warps 12-15
    }
  } else {
#ifndef PK_SM90_NO_SETMAXNREG
    if constexpr (Cfg::kSetMaxNReg) setmaxnreg_inc<Cfg::kConsumerRegs>();
#endif
    using namespace cute;
    typename Cfg::TiledMma mma;
    Tensor accum = partition_fragment_C(mma, Shape<Int<Cfg::kWgRows>, Int<Cfg::BN>>{});
    const int total = sched.total_tiles();
    const int k_blocks = mp.k / kBK;
    int j = 0;  // CTA-local tile ordinal: tile j uses pipeline k-blocks j*k_blocks ...
    for (int unit = first_unit<Cfg>(); unit < total; unit += Cfg::kCluster ? unit_step<Cfg>() : gridDim.x, ++j) {
      if (Cfg::kPingPong && (j & 1) != wg - 1) continue;
      const TileCoord c = cta_tile<Cfg>(sched, unit);
      typename Epi::Pre pre;
      Epi::prefetch(ep, c, wg - 1, pre);
      uint32_t it = static_cast<uint32_t>(j) * k_blocks;
      // 192 accumulators a thread: the first wgmma reads them (scale-d = 0 or not), so they would stay live
      // through the epilogue; fresh zeros here end the old values at the epilogue's last read, freeing
      // registers for its work (a SwiGLU epilogue of this shape spilled ~940 B a thread without this).
      if constexpr (Cfg::kAccRegs > 128) cute::clear(accum);
      if constexpr (Cfg::kPingPong) {
        // Start only after the other warpgroup's mainloop of tile j-1 is through: then every
        // earlier phase of the stages this tile waits on has completed, so the parity waits
        // cannot alias a phase one round behind (and the two mainloops take turns).
        const int other = 2 - wg;  // consumer index of the other warpgroup
        if (j > 0) mbar_wait(&done[other], static_cast<uint32_t>((j - 1 - other) / 2) & 1u);
      }
      consumer_mainloop<Cfg>(mp, smem_a, smem_b, full, empty, it, wg - 1, accum,
                             Cfg::kPingPong ? &done[wg - 1] : nullptr, tile_has_rows(c));
      if constexpr (Cfg::kEpiWarps) Epi::stage(accum, smem_c, wg - 1, j, staged_full, staged_empty);
      else if constexpr (Cfg::kStagedStore) Epi::apply_staged(ep, c, wg - 1, accum, pre, smem_c, &tmap_out);
      else Epi::apply(ep, c, wg - 1, accum, pre);
    }
    if constexpr (Cfg::kStagedStore) Epi::finish();  // this thread's bulk stores are done before exit
  }
  // With a cluster neither CTA may exit while its peer can still multicast into it or arrive on
  // its barriers.
  if constexpr (Cfg::kCluster) cluster_sync();
#endif
}

}  // namespace pk::sm90
