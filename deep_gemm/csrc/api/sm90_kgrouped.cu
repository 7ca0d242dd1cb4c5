// Exported entry point of the Hopper k-grouped weight-gradient GEMM (sm90/kgrouped_wgrad.cuh).
#include <cstdint>
#include "../common/driver.cuh"
#include "../common/error.cuh"
#include "../sm90/kgrouped_wgrad.cuh"

namespace {

using pk::sm90::kgrouped::Config;
using pk::sm90::kgrouped::Params;
using pk::sm90::kgrouped::kgrouped_wgrad_kernel;

int num_sms_of_current_device() {
  int dev = 0, sms = 0;
  PK_CUDA_CHECK(cudaGetDevice(&dev));
  PK_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
  return sms;
}

// Tensor map over a row-major bf16 [rows, cols] matrix, box 64 columns x 64 rows, 128-byte
// swizzle (the layout the kernel's shared-memory ring uses); out-of-bounds rows read as zeros.
CUtensorMap make_tma_map(const void* base, int64_t rows, int cols) {
  using Encode = CUresult (*)(CUtensorMap*, CUtensorMapDataType, cuuint32_t, void*, const cuuint64_t*,
                              const cuuint64_t*, const cuuint32_t*, const cuuint32_t*,
                              CUtensorMapInterleave, CUtensorMapSwizzle, CUtensorMapL2promotion,
                              CUtensorMapFloatOOBfill);
  static Encode encode = reinterpret_cast<Encode>(pk::driver_entry_point("cuTensorMapEncodeTiled", 12000));
  CUtensorMap map{};
  const cuuint64_t dims[2] = {static_cast<cuuint64_t>(cols), static_cast<cuuint64_t>(rows)};
  const cuuint64_t strides[1] = {static_cast<cuuint64_t>(cols) * 2};
  const cuuint32_t box[2] = {64, 64};
  const cuuint32_t elem[2] = {1, 1};
  CUresult r = encode(&map, CU_TENSOR_MAP_DATA_TYPE_BFLOAT16, 2, const_cast<void*>(base), dims, strides,
                      box, elem, CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_128B,
                      CU_TENSOR_MAP_L2_PROMOTION_L2_256B, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
  if (r != CUDA_SUCCESS) pk::fail(pk::kCudaError, "cuTensorMapEncodeTiled failed (%d)", (int)r);
  return map;
}

template <int BN>
void launch(Params p, int max_ctas, cudaStream_t stream) {
  constexpr int smem = Config<BN>::kSmemBytes;
  PK_CUDA_CHECK(cudaFuncSetAttribute(kgrouped_wgrad_kernel<BN>,
                                     cudaFuncAttributeMaxDynamicSharedMemorySize, smem));
  p.tiles_m = p.M / pk::sm90::kgrouped::kBlockM;
  p.tiles_n = p.N / BN;
  const int64_t tiles = static_cast<int64_t>(p.num_groups) * p.tiles_m * p.tiles_n;
  PK_REQUIRE(tiles < (int64_t(1) << 31), "too many output tiles: %lld", (long long)tiles);
  p.num_tiles = static_cast<int>(tiles);
  if (p.num_tiles == 0) return;
  int sms = num_sms_of_current_device();
  if (max_ctas > 0 && max_ctas < sms) sms = max_ctas;
  const int grid = p.num_tiles < sms ? p.num_tiles : sms;
  // The identity-indexed operand (B when both are) comes by TMA on full chunks; 16-byte aligned
  // base pointers are needed for that, else everything goes through cp.async.
  CUtensorMap map{};
  auto aligned = [](const void* q) { return (reinterpret_cast<uintptr_t>(q) & 15) == 0; };
  if (p.tma_side == 2 && p.b_rows == nullptr && p.b_num_rows > 0 && aligned(p.b)) {
    map = make_tma_map(p.b, p.b_num_rows, p.N);
  } else if (p.tma_side != 0 && p.a_rows == nullptr && p.a_num_rows > 0 && aligned(p.a)) {
    p.tma_side = 1;
    map = make_tma_map(p.a, p.a_num_rows, p.M);
  } else {
    p.tma_side = 0;
  }
  kgrouped_wgrad_kernel<BN><<<grid, pk::sm90::kgrouped::kThreads, smem, stream>>>(p, map);
  PK_CHECK_LAUNCH();
}

}  // namespace

// out[g] (+)= sum_{r in [offsets[g], offsets[g+1])} a[a_rows[r]]^T (x) b[b_rows[r]], fp32.
//   a: bf16 [a_num_rows, M]; a_rows: int32 [num_rows] or null (identity); likewise b, b_rows, N;
//   offsets: int32 [num_groups + 1] on the device (never read on the host);
//   out: fp32 [num_groups, M, N]; accumulate: 0 = overwrite, 1 = add.
//   max_ctas: 0 = one CTA per SM, else at most that many (for testing the persistent loop).
//   use_tma: 1 = load a full chunk of an identity-indexed operand by TMA (0: cp.async only).
//   debug: tuning only (bit 0: skip epilogue stores, bit 1: skip wgmma); 0 in normal use.
//   block_n: 0 = choose (256 when N % 256 == 0, else 128), or 128 / 256 to force (tests, tuning).
// Needs M % 128 == 0 and N % 128 == 0 (status kNotSupported otherwise).
PK_EXPORT int pk_sm90_k_grouped_wgrad(const void* a, const int* a_rows, int64_t a_num_rows,
                                      const void* b, const int* b_rows, int64_t b_num_rows,
                                      int64_t num_rows, const int* offsets, int num_groups, int M,
                                      int N, float* out, int accumulate, int max_ctas,
                                      int block_n, int use_tma, int debug, void* stream) {
  return pk::guarded("pk_sm90_k_grouped_wgrad", [&] {
    PK_REQUIRE(a != nullptr && b != nullptr && offsets != nullptr && out != nullptr,
               "a, b, offsets and out must be non-null");
    PK_REQUIRE(num_groups >= 0, "num_groups must be >= 0, got %d", num_groups);
    PK_REQUIRE(M > 0 && N > 0, "M and N must be positive, got %d, %d", M, N);
    PK_REQUIRE(num_rows >= 0 && num_rows < (int64_t(1) << 31), "num_rows out of range: %lld",
               (long long)num_rows);
    PK_REQUIRE(a_num_rows >= 0 && a_num_rows < (int64_t(1) << 31) && b_num_rows >= 0 &&
                   b_num_rows < (int64_t(1) << 31),
               "a/b row counts out of range");
    if (M % 128 != 0 || N % 128 != 0)
      pk::fail(pk::kNotSupported, "M and N must be multiples of 128, got M=%d N=%d", M, N);
    Params p{};
    p.a = static_cast<const __nv_bfloat16*>(a);
    p.a_rows = a_rows;
    p.b = static_cast<const __nv_bfloat16*>(b);
    p.b_rows = b_rows;
    p.offsets = offsets;
    p.out = out;
    p.a_num_rows = a_num_rows;
    p.b_num_rows = b_num_rows;
    p.num_rows = num_rows;
    p.M = M;
    p.N = N;
    p.num_groups = num_groups;
    p.accumulate = accumulate ? 1 : 0;
    p.tma_side = use_tma ? 2 : 0;  // refined in launch(): B if identity, else A if identity
    p.debug = debug;
    auto s = static_cast<cudaStream_t>(stream);
    PK_REQUIRE(block_n == 0 || block_n == 128 || block_n == 256, "block_n must be 0, 128 or 256");
    if (block_n == 256 && N % 256 != 0)
      pk::fail(pk::kNotSupported, "block_n 256 needs N %% 256 == 0, got N=%d", N);
    if (block_n == 256 || (block_n == 0 && N % 256 == 0))
      launch<256>(p, max_ctas, s);
    else
      launch<128>(p, max_ctas, s);
  });
}
