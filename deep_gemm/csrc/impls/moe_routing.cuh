// MoE routing metadata on the GPU, no host synchronisation (capturable in a CUDA graph).
//
// Input: topk_idx [T, K] (int32 or int64), -1 (or anything outside [0, E)) = masked slot.
// Output:
//   counts[E]             pairs routed to each expert
//   offsets[E + 1]        exclusive prefix sum of counts; offsets[E] = valid pairs
//   sorted_pair[T*K]      flat pair index t*K+k at each expert-sorted position; -1 past offsets[E]
//   pair_to_sorted[T*K]   sorted position of each pair; -1 for masked slots
// Order within an expert is increasing flat pair index, so the result is deterministic.
//
// One cooperative launch (a routing step was four launches until session 14: ~25 µs of GPU time and
// ~35 µs of CPU before GEMM 1 could start). Pairs are cut into chunks of kChunk, one warp per chunk;
// three phases separated by grid-wide barriers:
//   1. per-chunk histograms                hist[chunk][E]
//   2. per-expert scan over the chunks     hist[chunk][e] <- pairs of e in earlier chunks; counts[e]
//      (one block per expert column)
//   3. every block scans counts into offsets in shared memory (block 0 also stores them), then
//      stable placement: each warp walks its chunk 32 pairs at a time; lanes with the same expert
//      find each other with __match_any_sync and take consecutive slots in lane order; then
//      sorted_pair past offsets[E] is filled with -1 (placement never writes there).
#pragma once
#include <cooperative_groups.h>
#include <cstdint>
#include <cuda_runtime.h>

namespace pk::routing {

constexpr int kChunk = 256;  // pairs per warp
constexpr int kWarpsPerBlock = 4;
constexpr int kThreads = 32 * kWarpsPerBlock;

// Shared memory of the kernel: offsets [E + 1], then one [E] row per warp (histogram, next slot).
__host__ __device__ constexpr size_t routing_smem_bytes(int num_experts) {
  return sizeof(int) * (static_cast<size_t>(num_experts) + 1 + static_cast<size_t>(kWarpsPerBlock) * num_experts);
}

template <typename Idx>
__device__ __forceinline__ int expert_of(const Idx* topk_idx, int64_t pair, int num_experts) {
  const int64_t e = static_cast<int64_t>(topk_idx[pair]);
  return (e >= 0 && e < num_experts) ? static_cast<int>(e) : -1;
}

// Exclusive scan of one value a thread over the block (kThreads threads); *total gets the sum.
__device__ __forceinline__ int block_exclusive_scan(int v, int* warp_sums, int* total) {
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  int incl = v;
#pragma unroll
  for (int d = 1; d < 32; d *= 2) {
    const int n = __shfl_up_sync(0xffffffffu, incl, d);
    if (lane >= d) incl += n;
  }
  __syncthreads();  // warp_sums may still be read by a previous call
  if (lane == 31) warp_sums[warp] = incl;
  __syncthreads();
  int base = 0, sum = 0;
#pragma unroll
  for (int w = 0; w < kWarpsPerBlock; ++w) {
    base += w < warp ? warp_sums[w] : 0;
    sum += warp_sums[w];
  }
  *total = sum;
  return base + incl - v;
}

template <typename Idx>
__global__ void __launch_bounds__(kThreads)
routing_kernel(const Idx* __restrict__ topk_idx, int64_t num_pairs, int num_experts, int64_t num_chunks,
               int* __restrict__ hist, int* __restrict__ counts, int* __restrict__ offsets,
               int* __restrict__ sorted_pair, int* __restrict__ pair_to_sorted) {
  namespace cg = cooperative_groups;
  extern __shared__ int smem[];
  __shared__ int warp_sums[kWarpsPerBlock];
  const int E = num_experts;
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  int* smem_off = smem;                                // [E + 1]
  int* my = smem + (E + 1) + warp * E;                 // this warp's [E]
  const int64_t warps_total = static_cast<int64_t>(gridDim.x) * kWarpsPerBlock;
  const int64_t first_chunk = static_cast<int64_t>(blockIdx.x) * kWarpsPerBlock + warp;

  // 1. histograms
  for (int64_t chunk = first_chunk; chunk < num_chunks; chunk += warps_total) {
    for (int e = lane; e < E; e += 32) my[e] = 0;
    __syncwarp();
    const int64_t begin = chunk * kChunk;
    for (int i = lane; i < kChunk; i += 32) {
      const int64_t p = begin + i;
      if (p < num_pairs) {
        const int e = expert_of(topk_idx, p, E);
        if (e >= 0) atomicAdd(&my[e], 1);
      }
    }
    __syncwarp();
    for (int e = lane; e < E; e += 32) hist[chunk * E + e] = my[e];
    __syncwarp();
  }
  cg::this_grid().sync();

  // 2. per-expert exclusive scan over the chunks, kPer consecutive chunks a thread per pass
  constexpr int kPer = 4;
  for (int e = blockIdx.x; e < E; e += gridDim.x) {
    int carry = 0;
    for (int64_t c0 = 0; c0 < num_chunks; c0 += static_cast<int64_t>(kThreads) * kPer) {
      const int64_t c = c0 + static_cast<int64_t>(threadIdx.x) * kPer;
      int v[kPer], sum = 0;
#pragma unroll
      for (int j = 0; j < kPer; ++j) {
        v[j] = c + j < num_chunks ? hist[(c + j) * E + e] : 0;
        sum += v[j];
      }
      int pass_total;
      int run = carry + block_exclusive_scan(sum, warp_sums, &pass_total);
#pragma unroll
      for (int j = 0; j < kPer; ++j) {
        if (c + j < num_chunks) hist[(c + j) * E + e] = run;
        run += v[j];
      }
      carry += pass_total;
    }
    if (threadIdx.x == 0) counts[e] = carry;
  }
  cg::this_grid().sync();

  // 3a. offsets in shared memory: a thread scans ceil(E / kThreads) consecutive experts
  {
    const int per = (E + kThreads - 1) / kThreads;
    const int e0 = threadIdx.x * per;
    int sum = 0;
    for (int e = e0; e < e0 + per && e < E; ++e) sum += counts[e];
    int total;
    int run = block_exclusive_scan(sum, warp_sums, &total);
    for (int e = e0; e < e0 + per && e < E; ++e) {
      smem_off[e] = run;
      run += counts[e];
    }
    if (threadIdx.x == 0) smem_off[E] = total;
    __syncthreads();
    if (blockIdx.x == 0)
      for (int e = threadIdx.x; e <= E; e += kThreads) offsets[e] = smem_off[e];
  }

  // 3b. stable placement
  for (int64_t chunk = first_chunk; chunk < num_chunks; chunk += warps_total) {
    for (int e = lane; e < E; e += 32) my[e] = smem_off[e] + hist[chunk * E + e];
    __syncwarp();
    const int64_t begin = chunk * kChunk;
    for (int step = 0; step < kChunk; step += 32) {
      const int64_t p = begin + step + lane;
      const bool in_range = p < num_pairs;
      const int e = in_range ? expert_of(topk_idx, p, E) : -1;
      // Lanes sharing an expert (masked and out-of-range lanes group together too, harmlessly).
      const unsigned peers = __match_any_sync(0xffffffffu, e);
      const int rank = __popc(peers & ((1u << lane) - 1u));
      const int leader = __ffs(peers) - 1;
      int base = 0;
      if (e >= 0 && lane == leader) base = my[e];
      base = __shfl_sync(0xffffffffu, base, leader);
      if (e >= 0) {
        const int pos = base + rank;
        sorted_pair[pos] = static_cast<int>(p);
        pair_to_sorted[p] = pos;
      } else if (in_range) {
        pair_to_sorted[p] = -1;
      }
      __syncwarp();
      if (e >= 0 && lane == leader) my[e] = base + __popc(peers);
      __syncwarp();
    }
  }

  // 3c. every sorted_pair element defined: -1 past the valid pairs
  for (int64_t i = smem_off[E] + static_cast<int64_t>(blockIdx.x) * kThreads + threadIdx.x; i < num_pairs;
       i += static_cast<int64_t>(gridDim.x) * kThreads)
    sorted_pair[i] = -1;
}

}  // namespace pk::routing
