// The sm90 m-grouped GEMM kernel family: C[p, :] = A[row(p), :] . B[group(p)]^T (or . B[group]),
// persistent, warp-specialized (1 producer warpgroup + 2 wgmma consumer warpgroups, 384 threads,
// one CTA per SM), group sizes read on the device (see scheduler.cuh), with a pluggable epilogue
// (see epilogue.cuh). The same kernel serves the MoE forward (GEMM 1 with the SwiGLU epilogue,
// GEMM 2), the MoE backward (dy . W2 with the SwiGLU backward epilogue, dz . W1) and the public
// bf16 m-grouped GEMMs (contiguous and masked layouts).
#pragma once
#include "mainloop.cuh"
#include "epilogue.cuh"

namespace pk::sm90 {

template <class Cfg, AMode AM, class Epi>
__global__ void __launch_bounds__(kNumThreads, 1)
grouped_gemm_kernel(const __grid_constant__ CUtensorMap tmap_b, const MainloopParams mp,
                    const GroupInfo groups, const EpilogueParams ep) {
#if defined(__CUDA_ARCH__) && (__CUDA_ARCH__ >= 900)
  extern __shared__ uint8_t smem_raw[];
  uint8_t* smem = reinterpret_cast<uint8_t*>((reinterpret_cast<uintptr_t>(smem_raw) + 1023) & ~uintptr_t(1023));
  uint8_t* smem_a = smem;
  uint8_t* smem_b = smem + Cfg::kStages * Cfg::kABytes;
  uint64_t* full = reinterpret_cast<uint64_t*>(smem_b + Cfg::kStages * Cfg::kBBytes);
  uint64_t* empty = full + Cfg::kStages;
  int* sched_ints = reinterpret_cast<int*>(empty + Cfg::kStages);

  if (threadIdx.x == 0) {
    prefetch_tma_map(&tmap_b);
    for (int s = 0; s < Cfg::kStages; ++s) {
      mbar_init(&full[s], 128 + 1);  // 128 producer cp.async arrivals + the TMA thread's expect_tx
      mbar_init(&empty[s], 8);       // one arrival per consumer warp
    }
    fence_barrier_init();
  }
  Scheduler<kBM> sched;
  sched.init(groups, mp.n_blocks, sched_ints);  // ends with __syncthreads (also publishes barriers)

  const int wg = threadIdx.x / 128;
  if (wg == 0) {
    setmaxnreg_dec<72>();
    producer_loop<Cfg, AM>(sched, mp, &tmap_b, smem_a, smem_b, full, empty);
  } else {
    setmaxnreg_inc<216>();
    using namespace cute;
    typename Cfg::TiledMma mma;
    Tensor accum = partition_fragment_C(mma, Shape<Int<64>, Int<Cfg::BN>>{});
    uint32_t it = 0;
    const int total = sched.total_tiles();
    for (int tile = blockIdx.x; tile < total; tile += gridDim.x) {
      const TileCoord c = sched.coord(tile);
      consumer_mainloop<Cfg>(mp, smem_a, smem_b, full, empty, it, wg - 1, accum);
      Epi::apply(ep, c, wg - 1, accum);
    }
  }
#endif
}

}  // namespace pk::sm90
