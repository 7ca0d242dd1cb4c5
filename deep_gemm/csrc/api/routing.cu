// Exported entry point for the MoE routing metadata (see impls/moe_routing.cuh).
#include <cstdint>
#include "../common/error.cuh"
#include "../impls/moe_routing.cuh"

namespace {

template <typename Idx>
void launch_routing(const Idx* topk_idx, int64_t num_pairs, int num_experts, int* hist,
                    int* counts, int* offsets, int* sorted_pair, int* pair_to_sorted,
                    cudaStream_t stream) {
  using namespace pk::routing;
  const int64_t num_chunks = (num_pairs + kChunk - 1) / kChunk;
  const int64_t blocks = (num_chunks + kWarpsPerBlock - 1) / kWarpsPerBlock;
  const size_t smem_warps = sizeof(int) * kWarpsPerBlock * num_experts;
  if (smem_warps > 48 * 1024) {
    PK_CUDA_CHECK(cudaFuncSetAttribute(chunk_histogram_kernel<Idx>,
                                       cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem_warps));
    PK_CUDA_CHECK(cudaFuncSetAttribute(stable_place_kernel<Idx>,
                                       cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem_warps));
  }
  if (blocks > 0) {
    chunk_histogram_kernel<Idx><<<(unsigned)blocks, 32 * kWarpsPerBlock, smem_warps, stream>>>(
        topk_idx, num_pairs, num_experts, num_chunks, hist);
    PK_CHECK_LAUNCH();
  }
  const int segments = scan_segments(num_experts);
  const size_t scan_smem = sizeof(int) * (size_t)num_experts * (segments > 1 ? 1 + segments : 1);
  if (scan_smem > 48 * 1024)
    PK_CUDA_CHECK(cudaFuncSetAttribute(expert_scan_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                       (int)scan_smem));
  expert_scan_kernel<<<1, kScanThreads, scan_smem, stream>>>(num_experts, num_chunks, hist, counts, offsets);
  PK_CHECK_LAUNCH();
  if (blocks > 0) {
    stable_place_kernel<Idx><<<(unsigned)blocks, 32 * kWarpsPerBlock, smem_warps, stream>>>(
        topk_idx, num_pairs, num_experts, num_chunks, hist, offsets, sorted_pair, pair_to_sorted);
    PK_CHECK_LAUNCH();
    const int64_t fill_blocks = (num_pairs + 255) / 256 < 1024 ? (num_pairs + 255) / 256 : 1024;
    fill_tail_kernel<<<(unsigned)fill_blocks, 256, 0, stream>>>(num_pairs, num_experts, offsets,
                                                                sorted_pair);
    PK_CHECK_LAUNCH();
  }
}

}  // namespace

// Workspace bytes needed by pk_moe_routing for num_pairs = T*K pairs and E experts.
PK_EXPORT int64_t pk_moe_routing_workspace_bytes(int64_t num_pairs, int num_experts) {
  const int64_t num_chunks = (num_pairs + pk::routing::kChunk - 1) / pk::routing::kChunk;
  return num_chunks * num_experts * (int64_t)sizeof(int);
}

// idx_bytes: 4 (int32) or 8 (int64). All pointers are device pointers; stream is a cudaStream_t.
PK_EXPORT int pk_moe_routing(const void* topk_idx, int idx_bytes, int64_t num_pairs,
                             int num_experts, void* workspace, int* counts, int* offsets,
                             int* sorted_pair, int* pair_to_sorted, void* stream) {
  return pk::guarded("pk_moe_routing", [&] {
    PK_REQUIRE(idx_bytes == 4 || idx_bytes == 8, "topk_idx element size must be 4 or 8, got %d", idx_bytes);
    PK_REQUIRE(num_pairs >= 0 && num_pairs < (int64_t(1) << 31), "num_pairs out of range: %lld",
               (long long)num_pairs);
    PK_REQUIRE(num_experts > 0 && num_experts <= 8192, "num_experts must be in [1, 8192], got %d",
               num_experts);
    auto s = static_cast<cudaStream_t>(stream);
    auto* hist = static_cast<int*>(workspace);
    if (idx_bytes == 8)
      launch_routing(static_cast<const int64_t*>(topk_idx), num_pairs, num_experts, hist, counts,
                     offsets, sorted_pair, pair_to_sorted, s);
    else
      launch_routing(static_cast<const int32_t*>(topk_idx), num_pairs, num_experts, hist, counts,
                     offsets, sorted_pair, pair_to_sorted, s);
  });
}
