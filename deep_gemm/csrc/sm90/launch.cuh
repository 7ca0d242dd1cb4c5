// Host-side helpers for the sm90 kernels: TMA descriptors for the weights, SM count, launch of
// one grouped-GEMM instantiation with its worst-case persistent grid.
#pragma once
#include <cuda.h>
#include <cuda_runtime.h>
#include <cstdint>
#include <cstdlib>
#include "../common/driver.cuh"
#include "../common/error.cuh"
#include "grouped_gemm.cuh"

namespace pk::sm90 {

// A 3-D bf16 tensor [d2][d1][d0] (d0 contiguous) read in boxes {b0, b1, 1}, 128-byte swizzled.
inline CUtensorMap make_tmap_bf16_3d(const void* base, uint64_t d0, uint64_t d1, uint64_t d2,
                                     uint32_t b0, uint32_t b1) {
  PK_REQUIRE(reinterpret_cast<uintptr_t>(base) % 16 == 0, "weight pointer must be 16-byte aligned");
  const cuuint64_t dims[3] = {d0, d1, d2};
  const cuuint64_t strides[2] = {d0 * 2, d0 * d1 * 2};
  const cuuint32_t box[3] = {b0, b1, 1};
  return encode_tensor_map(CU_TENSOR_MAP_DATA_TYPE_BFLOAT16, 3, base, dims, strides, box, CU_TENSOR_MAP_SWIZZLE_128B,
                           CU_TENSOR_MAP_L2_PROMOTION_L2_256B);
}

inline int num_sms() { return current_device_attribute(cudaDevAttrMultiProcessorCount); }

// The memory bus width in bits, 1024 a HBM stack: 5120 on an H100 (3.35 TB/s), 6144 on an H200 (4.8 TB/s), the one
// difference between the two that these kernels see (same SMs, L2 and 700 W cap).
inline int memory_bus_bits() { return current_device_attribute(cudaDevAttrGlobalMemoryBusWidth); }

// `variant | kVariantCluster` asks an entry point for the cooperative form of its variant with 2-CTA
// clusters multicasting the weight tile (GemmConfig's Cluster_).
constexpr int kVariantCluster = 16;
// `variant | kVariantWait0` asks for the form of a variant whose consumers release each stage after
// wgmma.wait_group 0 (GemmConfig's Wait0_), where an entry point has one.
constexpr int kVariantWait0 = 32;
// `variant | kVariantTmaStore` (staged epilogues that have it): full tiles leave by TMA tensor stores.
constexpr int kVariantTmaStore = 64;

// A 2-D bf16 tensor [rows][cols] (row stride ld elements) written in boxes of 64 rows x box_cols
// columns, swizzled as StagedTile::stmatrix_boxes lays them out (64 columns: 128-byte swizzle, 32: 64-byte).
inline CUtensorMap make_tmap_bf16_store(const void* base, uint64_t cols, uint64_t rows, uint64_t ld,
                                        uint32_t box_cols = 64) {
  PK_REQUIRE(reinterpret_cast<uintptr_t>(base) % 16 == 0 && ld % 8 == 0, "TMA store: 16-byte aligned rows needed");
  PK_REQUIRE(box_cols == 64 || box_cols == 32, "TMA store boxes are 64 or 32 columns wide");
  const cuuint64_t dims[2] = {cols, rows};
  const cuuint64_t strides[1] = {ld * 2};
  const cuuint32_t box[2] = {box_cols, 64};
  return encode_tensor_map(CU_TENSOR_MAP_DATA_TYPE_BFLOAT16, 2, base, dims, strides, box,
                           box_cols == 64 ? CU_TENSOR_MAP_SWIZZLE_128B : CU_TENSOR_MAP_SWIZZLE_64B,
                           CU_TENSOR_MAP_L2_PROMOTION_NONE);
}

// Upper bound on the m-tiles (of bm rows) of a grouped layout, without reading the device sizes.
inline int64_t max_m_tiles(const GroupInfo& g, int64_t max_rows, int bm = kBM) {
  if (g.mode == GroupMode::kMasked) return (int64_t)g.num_groups * ((g.max_m + bm - 1) / bm);
  return (max_rows + bm - 1) / bm + g.num_groups;  // offsets / psum: each group adds <= 1 partial tile
}

// PK_SM90_MAX_CTAS=n (tests, sanitizer runs): cap the persistent grid at n CTAs, so that each CTA walks
// many tiles (ring phases, staging-buffer reuse) even at small shapes. Read at every launch.
inline int64_t max_ctas_override() {
  const char* s = std::getenv("PK_SM90_MAX_CTAS");
  return s != nullptr ? std::atoll(s) : 0;
}

// Tile order within a group (scheduler.cuh): m-tiles fastest once a group's weight slices are 16 or more
// n-blocks apart (235B GEMM 1, GEMM 2, dX): n-fastest there reads each expert's weights from DRAM about
// twice (session 11 run 1, ncu: 235B GEMM 1 10.4 -> 5.5 GB, dX 9.2 -> 5.3, GEMM 2 4.2 -> 2.1 GB read;
// the layer -1.6 %). PK_SM90_TILE_ORDER=m or =n forces one order (tuning).
inline int m_fastest_order(int n_blocks) {
  const char* s = std::getenv("PK_SM90_TILE_ORDER");
  if (s != nullptr && (s[0] == 'm' || s[0] == 'n')) return s[0] == 'm' ? 1 : 0;
  return n_blocks >= 16 ? 1 : 0;
}

template <class Cfg, AMode AM, class Epi>
void launch_grouped_gemm(const CUtensorMap& tmap_b, const MainloopParams& mp, const GroupInfo& g_in,
                         const EpilogueParams& ep, int64_t max_rows, cudaStream_t stream,
                         const CUtensorMap& tmap_a = CUtensorMap{}, const CUtensorMap& tmap_out = CUtensorMap{}) {
  GroupInfo g = g_in;
  g.m_fastest = m_fastest_order(mp.n_blocks);
  PK_REQUIRE(mp.k > 0 && mp.k % kBK == 0, "reduction length must be a positive multiple of %d, got %d", kBK, mp.k);
  PK_REQUIRE(g.num_groups > 0 && g.num_groups <= kMaxGroups, "groups must be in [1, %d], got %d", kMaxGroups,
             g.num_groups);
  // units: m-tiles, or with a 2-CTA cluster pairs of m-tiles (one per cluster at a time)
  const int64_t units = max_m_tiles(g, max_rows, Cfg::kCluster ? 2 * kBM : kBM) * mp.n_blocks;
  if (units == 0 || max_rows == 0) return;
  auto kernel = grouped_gemm_kernel<Cfg, AM, Epi>;
  // Per call (cheap, host-only): the attribute is per device, and callers may switch devices.
  PK_CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, Cfg::kSmemBytes));
  if constexpr (Cfg::kCluster) {
    cudaLaunchConfig_t cfg;
    cudaLaunchAttribute attr;
    const int clusters = cluster_launch_config(cfg, attr, kernel, Cfg::kThreads, Cfg::kSmemBytes, stream, 2);
    int64_t n = units < clusters ? units : clusters;
    const int64_t cap = max_ctas_override() / 2;
    if (cap > 0 && cap < n) n = cap;
    cfg.gridDim = dim3(static_cast<unsigned>(2 * n), 1, 1);
    PK_CUDA_CHECK(cudaLaunchKernelEx(&cfg, kernel, tmap_b, tmap_a, tmap_out, mp, g, ep));
  } else {
    const int64_t sms = num_sms();
    int64_t grid = units < sms ? units : sms;
    const int64_t cap = max_ctas_override();
    if (cap > 0 && cap < grid) grid = cap;
    kernel<<<static_cast<unsigned>(grid), Cfg::kThreads, Cfg::kSmemBytes, stream>>>(tmap_b, tmap_a, tmap_out, mp, g,
                                                                                   ep);
  }
  PK_CHECK_LAUNCH();
}

}  // namespace pk::sm90
