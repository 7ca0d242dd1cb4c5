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
// Three passes over fixed chunks of kChunk pairs, one warp per chunk:
//   1. per-chunk histograms            hist[chunk][E]
//   2. per-expert scan over chunks     hist[chunk][e] <- global base of (chunk, e); counts, offsets
//   3. stable placement: each warp walks its chunk 32 pairs at a time; lanes with the same
//      expert find each other with __match_any_sync and take consecutive slots in lane order.
#pragma once
#include <cstdint>
#include <cuda_runtime.h>

namespace pk::routing {

constexpr int kChunk = 256;         // pairs per warp
constexpr int kWarpsPerBlock = 4;

template <typename Idx>
__device__ __forceinline__ int expert_of(const Idx* topk_idx, int64_t pair, int num_experts) {
  const int64_t e = static_cast<int64_t>(topk_idx[pair]);
  return (e >= 0 && e < num_experts) ? static_cast<int>(e) : -1;
}

template <typename Idx>
__global__ void __launch_bounds__(32 * kWarpsPerBlock)
chunk_histogram_kernel(const Idx* __restrict__ topk_idx, int64_t num_pairs, int num_experts,
                       int64_t num_chunks, int* __restrict__ hist) {
  extern __shared__ int smem_hist[];  // [kWarpsPerBlock][E]
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  int* my = smem_hist + warp * num_experts;
  for (int e = lane; e < num_experts; e += 32) my[e] = 0;
  __syncwarp();
  const int64_t chunk = static_cast<int64_t>(blockIdx.x) * kWarpsPerBlock + warp;
  if (chunk < num_chunks) {
    const int64_t begin = chunk * kChunk;
    for (int i = lane; i < kChunk; i += 32) {
      const int64_t p = begin + i;
      if (p < num_pairs) {
        const int e = expert_of(topk_idx, p, num_experts);
        if (e >= 0) atomicAdd(&my[e], 1);
      }
    }
    __syncwarp();
    for (int e = lane; e < num_experts; e += 32) hist[chunk * num_experts + e] = my[e];
  }
}

// One block. Each expert's chunk column is split into S = blockDim / E segments (S = 1 when E is
// large), so that S*E threads walk it at once: segment sums, an exclusive scan over the segments,
// then each segment rewrites its entries as running counts; one thread then scans the experts.
// (One thread per expert walking all 512 chunks of T = 16384, K = 8 took 49 us on an H200: a chain
// of dependent global loads; split 8 ways and unrolled, the same work is a few microseconds.)
constexpr int kScanThreads = 1024;

__host__ __device__ constexpr int scan_segments(int num_experts) {
  return num_experts * 2 <= kScanThreads ? kScanThreads / num_experts : 1;
}

__global__ void __launch_bounds__(kScanThreads)
expert_scan_kernel(int num_experts, int64_t num_chunks, int* __restrict__ hist, int* __restrict__ counts,
                   int* __restrict__ offsets) {
  extern __shared__ int smem_scan[];  // counts [E], then segment bases [S][E] when S > 1
  int* smem_counts = smem_scan;
  int* seg_base = smem_scan + num_experts;
  const int E = num_experts;
  const int S = scan_segments(E);
  const int64_t per = (num_chunks + S - 1) / S;
  // pass 1 (S > 1): segment sums
  if (S > 1) {
    for (int i = threadIdx.x; i < S * E; i += blockDim.x) {
      const int e = i % E, seg = i / E;
      const int64_t c1 = min(num_chunks, (seg + 1) * per);
      int sum = 0;
#pragma unroll 8
      for (int64_t c = seg * per; c < c1; ++c) sum += hist[c * E + e];
      seg_base[seg * E + e] = sum;
    }
    __syncthreads();
    for (int e = threadIdx.x; e < E; e += blockDim.x) {
      int run = 0;
      for (int seg = 0; seg < S; ++seg) {
        const int v = seg_base[seg * E + e];
        seg_base[seg * E + e] = run;
        run += v;
      }
      smem_counts[e] = run;
      counts[e] = run;
    }
    __syncthreads();
  }
  // pass 2: exclusive running counts, relative to the expert's start
  for (int i = threadIdx.x; i < S * E; i += blockDim.x) {
    const int e = i % E, seg = i / E;
    const int64_t c1 = min(num_chunks, (seg + 1) * per);
    int run = S > 1 ? seg_base[seg * E + e] : 0;
#pragma unroll 8
    for (int64_t c = seg * per; c < c1; ++c) {
      const int v = hist[c * E + e];
      hist[c * E + e] = run;
      run += v;
    }
    if (S == 1) {
      smem_counts[e] = run;
      counts[e] = run;
    }
  }
  __syncthreads();
  if (threadIdx.x == 0) {  // E is small (<= a few thousand): a serial scan is cheapest here
    int acc = 0;
    for (int e = 0; e < E; ++e) {
      offsets[e] = acc;
      acc += smem_counts[e];
    }
    offsets[E] = acc;
  }
}

template <typename Idx>
__global__ void __launch_bounds__(32 * kWarpsPerBlock)
stable_place_kernel(const Idx* __restrict__ topk_idx, int64_t num_pairs, int num_experts,
                    int64_t num_chunks, const int* __restrict__ hist,
                    const int* __restrict__ offsets, int* __restrict__ sorted_pair,
                    int* __restrict__ pair_to_sorted) {
  extern __shared__ int smem_next[];  // [kWarpsPerBlock][E] next free slot per expert
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  int* next = smem_next + warp * num_experts;
  const int64_t chunk = static_cast<int64_t>(blockIdx.x) * kWarpsPerBlock + warp;
  if (chunk >= num_chunks) return;
  for (int e = lane; e < num_experts; e += 32) next[e] = offsets[e] + hist[chunk * num_experts + e];
  __syncwarp();
  const int64_t begin = chunk * kChunk;
  for (int step = 0; step < kChunk; step += 32) {
    const int64_t p = begin + step + lane;
    const bool in_range = p < num_pairs;
    const int e = in_range ? expert_of(topk_idx, p, num_experts) : -1;
    // Lanes sharing an expert (masked and out-of-range lanes group together too, harmlessly).
    const unsigned peers = __match_any_sync(0xffffffffu, e);
    const int rank = __popc(peers & ((1u << lane) - 1u));
    const int leader = __ffs(peers) - 1;
    int base = 0;
    if (e >= 0 && lane == leader) base = next[e];
    base = __shfl_sync(0xffffffffu, base, leader);
    if (e >= 0) {
      const int pos = base + rank;
      sorted_pair[pos] = static_cast<int>(p);
      pair_to_sorted[p] = pos;
    } else if (in_range) {
      pair_to_sorted[p] = -1;
    }
    __syncwarp();
    if (e >= 0 && lane == leader) next[e] = base + __popc(peers);
    __syncwarp();
  }
}

// Fills sorted_pair past the valid count with -1, so every output element is defined.
__global__ void fill_tail_kernel(int64_t num_pairs, int num_experts, const int* __restrict__ offsets,
                                 int* __restrict__ sorted_pair) {
  const int valid = offsets[num_experts];
  for (int64_t i = valid + static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < num_pairs;
       i += static_cast<int64_t>(gridDim.x) * blockDim.x)
    sorted_pair[i] = -1;
}

}  // namespace pk::routing
