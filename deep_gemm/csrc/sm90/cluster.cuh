// Thread-block clusters on sm_90a (2 CTAs; 4 in the k-grouped weight gradient's swapped form): the device
// helpers both kernel families use (rank, the cluster-wide barrier, an mbarrier arrive in a peer CTA) and the
// host launch configuration.
#pragma once
#include <cstdint>
#include <cuda_runtime.h>
#include "../common/error.cuh"

namespace pk::sm90 {

__device__ __forceinline__ uint32_t cluster_ctarank() {
  uint32_t r;
  asm volatile("mov.u32 %0, %%cluster_ctarank;" : "=r"(r));
  return r;
}

// Every thread of every CTA of the cluster (not .aligned: a TMA producer warp's lanes reach it
// at different times).
__device__ __forceinline__ void cluster_sync() {
  asm volatile("barrier.cluster.arrive.release;\nbarrier.cluster.wait.acquire;" ::: "memory");
}

// Arrive on the mbarrier at shared-memory address `bar` (this CTA's offset) in CTA `cta` of the
// cluster. Default semantics (release at CTA scope), as for a local arrive: `.release.cluster`
// compiled to MEMBAR.ALL.GPU before every arrive, which stalls the warpgroup's next wgmma.
__device__ __forceinline__ void mbar_arrive_cluster(uint32_t bar, uint32_t cta) {
  asm volatile(
      "{\n .reg .b32 ra;\n mapa.shared::cluster.u32 ra, %0, %1;\n"
      " mbarrier.arrive.shared::cluster.b64 _, [ra];\n}\n" ::"r"(bar), "r"(cta)
      : "memory");
}
__device__ __forceinline__ void mbar_arrive_cluster(uint64_t* bar, uint32_t cta) {
  mbar_arrive_cluster(static_cast<uint32_t>(__cvta_generic_to_shared(bar)), cta);
}

// Launch configuration of `kernel` in clusters of `size` CTAs along x (cfg.attrs points at `attr`; the
// caller sets cfg.gridDim). Returns how many such clusters fit on the device at once (clusters do not span
// GPCs: a GPC's SMs beyond a multiple of `size` stay idle).
template <class Kernel>
int cluster_launch_config(cudaLaunchConfig_t& cfg, cudaLaunchAttribute& attr, Kernel kernel, int threads,
                          int smem_bytes, cudaStream_t stream, int size) {
  cfg = cudaLaunchConfig_t{};
  attr.id = cudaLaunchAttributeClusterDimension;
  attr.val.clusterDim.x = static_cast<unsigned>(size);
  attr.val.clusterDim.y = 1;
  attr.val.clusterDim.z = 1;
  cfg.attrs = &attr;
  cfg.numAttrs = 1;
  cfg.blockDim = dim3(static_cast<unsigned>(threads), 1, 1);
  cfg.dynamicSmemBytes = static_cast<size_t>(smem_bytes);
  cfg.stream = stream;
  cfg.gridDim = dim3(static_cast<unsigned>(size), 1, 1);
  int clusters = 0;
  PK_CUDA_CHECK(cudaOccupancyMaxActiveClusters(&clusters, kernel, &cfg));
  PK_REQUIRE(clusters > 0, "no %d-CTA cluster of this kernel fits on the device", size);
  return clusters;
}

}  // namespace pk::sm90
