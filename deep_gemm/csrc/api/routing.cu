// Exported entry point for the MoE routing metadata (see impls/moe_routing.cuh).
#include <cstdint>
#include "../common/error.cuh"
#include "../impls/moe_routing.cuh"

namespace {

// One cooperative launch; the grid is what fits on the device at once (the phases loop over chunks and
// experts), at most one warp a chunk and at least one block an expert where that fits.
template <typename Idx>
void launch_routing(const Idx* topk_idx, int64_t num_pairs, int num_experts, int* hist,
                    int* counts, int* offsets, int* sorted_pair, int* pair_to_sorted,
                    cudaStream_t stream) {
  using namespace pk::routing;
  const int64_t num_chunks = (num_pairs + kChunk - 1) / kChunk;
  const size_t smem = routing_smem_bytes(num_experts);
  auto kernel = routing_kernel<Idx>;
  if (smem > 48 * 1024)
    PK_CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem));
  // blocks resident on the device at once; the occupancy query costs more host time than the rest of the
  // launch: once per device and shared-memory size
  static thread_local int cached_dev = -1;
  static thread_local size_t cached_smem = 0;
  static thread_local int64_t resident = 0;
  int dev = 0;
  PK_CUDA_CHECK(cudaGetDevice(&dev));
  if (dev != cached_dev || smem != cached_smem) {
    int sms = 0, per_sm = 0;
    PK_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
    PK_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, kThreads, smem));
    PK_REQUIRE(per_sm > 0, "routing kernel does not fit on an SM with %d experts (%zu bytes of shared memory)",
               num_experts, smem);
    cached_dev = dev;
    cached_smem = smem;
    resident = static_cast<int64_t>(per_sm) * sms;
  }
  const int64_t chunk_blocks = (num_chunks + kWarpsPerBlock - 1) / kWarpsPerBlock;
  int64_t blocks = chunk_blocks > num_experts ? chunk_blocks : num_experts;
  if (blocks > resident) blocks = resident;
  cudaLaunchConfig_t cfg{};
  cudaLaunchAttribute attr{};
  attr.id = cudaLaunchAttributeCooperative;
  attr.val.cooperative = 1;
  cfg.gridDim = dim3(static_cast<unsigned>(blocks), 1, 1);
  cfg.blockDim = dim3(kThreads, 1, 1);
  cfg.dynamicSmemBytes = smem;
  cfg.stream = stream;
  cfg.attrs = &attr;
  cfg.numAttrs = 1;
  PK_CUDA_CHECK(cudaLaunchKernelEx(&cfg, kernel, topk_idx, num_pairs, num_experts, num_chunks, hist, counts,
                                   offsets, sorted_pair, pair_to_sorted));
  PK_CHECK_LAUNCH();
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
