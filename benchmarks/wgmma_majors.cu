// Microbenchmark: throughput of wgmma m64n256k16 (bf16 x bf16 -> fp32, both operands from shared
// memory, 128-byte swizzle) by operand major, with the library's cooperative shape: two consumer
// warpgroups per CTA, each 64 rows x 256 columns, one CTA per SM, no global memory traffic at all.
//
// Question it answers (notes/sm90_kgrouped.md, session 6): the weight-gradient kernel reads both
// operands MN-major (the reduction runs over token rows); its MMA-only form ran at ~1450 cycles per
// 64-row chunk against the 1024 the MMAs need. Is wgmma itself slower with transposed operands?
//
// Build (dev machine): nvcc -std=c++17 -O3 --expt-relaxed-constexpr -gencode=arch=compute_90a,code=sm_90a \
//     -I<nvidia-cutlass>/include -Ideep_gemm/csrc -o wgmma_majors benchmarks/wgmma_majors.cu
// Run (H200): ./wgmma_majors   -> one table: TFLOP/s and SM cycles per 4-wgmma step of a warpgroup.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <utility>
#include <vector>
#include <algorithm>
#include <cuda_bf16.h>
#include <cuda_runtime.h>
#include <cute/arch/mma_sm90_gmma.hpp>
#include "sm90/kgrouped_wgrad.cuh"  // descriptor and mbarrier helpers of the weight-gradient kernel

#define CHECK(x)                                                                            \
  do {                                                                                      \
    cudaError_t e_ = (x);                                                                   \
    if (e_ != cudaSuccess) {                                                                \
      std::fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e_)); \
      std::exit(1);                                                                         \
    }                                                                                       \
  } while (0)

using cute::SM90::GMMA::Major;
using pk::sm90::kgrouped::mbar_arrive;
using pk::sm90::kgrouped::mbar_init;
using pk::sm90::kgrouped::mbar_wait;
// Shared-memory descriptor, 128-byte swizzle (start address, leading / stride byte offsets), any major.
constexpr auto desc_sw128 = pk::sm90::kgrouped::make_desc_mn_sw128;

// Operand of kRows (M or N) x 64 (K) elements for one 4-step k-block. K-major: rows of 128 bytes
// (64 k), 8-row groups 1024 bytes apart, k16 step = +32 bytes. MN-major: 64-wide MN blocks of
// 64 k-rows (8 KiB each, LBO), 8 k-rows 1024 bytes apart (SBO), k16 step = +2048 bytes.
template <bool kMN>
__device__ __forceinline__ uint64_t operand_desc(uint32_t base, int kk) {
  return kMN ? desc_sw128(base + kk * 2048, 8192, 1024) : desc_sw128(base + kk * 32, 16, 1024);
}

template <Major MA, Major MB, int... I>
__device__ __forceinline__ void mma(uint64_t da, uint64_t db, float* acc, std::integer_sequence<int, I...>) {
  cute::SM90::GMMA::MMA_64x256x16_F32BF16BF16_SS<MA, MB>::fma(da, db, acc[I]..., cute::SM90::GMMA::ScaleOut::One);
}

// kFence: the consumers' fence.proxy.async after each full-barrier wait (the weight-gradient kernel's
// cp.async -> wgmma hand-over). kRing: a 3-stage full / empty mbarrier ring driven by one producer
// thread (no data moves): the consumers wait on full[s] before each step and release empty[s] after
// it (after wait_group 0, or the previous stage after wait_group 1), as the library's kernels do.
// Session 7 (what the weight-gradient kernel's MMA-only form has and this loop had not; it runs at
// ~1300-1600 cycles a chunk against this loop's 1066):
//   kArrive128  the whole producer warpgroup fills each stage, every thread arriving through
//               cp.async.mbarrier.arrive.noinc (full count 129), as the gathering producers do;
//   kRotate     each stage has its own operands (3 x 48 KiB), so consecutive steps read other addresses;
//   kTile16     every 16 steps a new "tile": wait_group 0, zero the accumulators (as the kernel's tile
//               loop does).
template <bool kAMN, bool kBMN, bool kWait0, bool kFence = false, bool kRing = false, bool kArrive128 = false,
          bool kRotate = false, bool kTile16 = false>
__global__ void __launch_bounds__(384, 1) wgmma_loop(int iters, float* sink, long long* cycles) {
  extern __shared__ __align__(1024) uint8_t smem_raw[];
  const uint32_t base = (static_cast<uint32_t>(__cvta_generic_to_shared(smem_raw)) + 1023u) & ~1023u;
  uint8_t* smem = smem_raw + (base - static_cast<uint32_t>(__cvta_generic_to_shared(smem_raw)));
  // Random-looking bf16 in [-1, 1): zeros would draw less power and clock higher than real data.
  constexpr int kStageBytes = 48 * 1024;
  constexpr int kDataBytes = (kRotate ? 3 : 1) * kStageBytes;
  for (int i = threadIdx.x; i < kDataBytes / 2; i += blockDim.x) {
    const uint32_t h = (static_cast<uint32_t>(i) * 2654435761u) ^ (blockIdx.x * 40503u);
    reinterpret_cast<__nv_bfloat16*>(smem)[i] = __float2bfloat16(static_cast<float>((h >> 8) & 0xFFFF) / 32768.f - 1.f);
  }
  constexpr int kStages = 3;
  const uint32_t bars = base + kDataBytes;  // full[0..2], empty[0..2]
  if (threadIdx.x == 0) {
    for (int s = 0; s < kStages; ++s) {
      mbar_init(bars + 8 * s, kArrive128 ? 129 : 1);
      mbar_init(bars + 8 * (kStages + s), 2);
    }
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
  }
  asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
  __syncthreads();
  const int wg = threadIdx.x / 128;
  if (wg == 0) {  // the producer warpgroup's place: with kRing one thread fills the (empty) stages
    if (kRing && (kArrive128 || threadIdx.x == 0))
      for (int it = 0; it < iters; ++it) {
        mbar_wait(bars + 8 * (kStages + it % kStages), ((it / kStages) & 1) ^ 1);
        if (kArrive128) pk::sm90::kgrouped::cp_async_arrive_noinc(bars + 8 * (it % kStages));
        if (threadIdx.x == 0) mbar_arrive(bars + 8 * (it % kStages));
      }
    return;
  }
  const uint32_t a0 = base + (wg - 1) * 8192;  // each warpgroup its own 64 x 64 A block
  const uint32_t b0 = base + 16384;             // 256 x 64 B, shared by both (4 MN blocks / 256 K rows)
  constexpr Major MA = kAMN ? Major::MN : Major::K;
  constexpr Major MB = kBMN ? Major::MN : Major::K;
  float acc[128];
#pragma unroll
  for (int i = 0; i < 128; ++i) acc[i] = 0.f;
  const long long t0 = clock64();
  const bool releaser = threadIdx.x % 128 == 0;
  for (int it = 0; it < iters; ++it) {
    const int s = it % kStages;
    if (kTile16 && it % 16 == 0) {
      cute::warpgroup_wait<0>();
#pragma unroll
      for (int i = 0; i < 128; ++i) cute::warpgroup_fence_operand(acc[i]);
#pragma unroll
      for (int i = 0; i < 128; ++i) acc[i] = 0.f;
    }
    const uint32_t a = a0 + (kRotate ? s * kStageBytes : 0), b = b0 + (kRotate ? s * kStageBytes : 0);
    if constexpr (kRing) mbar_wait(bars + 8 * s, (it / kStages) & 1);
    if constexpr (kFence) asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
#pragma unroll
    for (int i = 0; i < 128; ++i) cute::warpgroup_fence_operand(acc[i]);
    cute::warpgroup_arrive();
#pragma unroll
    for (int kk = 0; kk < 4; ++kk)
      mma<MA, MB>(operand_desc<kAMN>(a, kk), operand_desc<kBMN>(b, kk), acc, std::make_integer_sequence<int, 128>{});
    cute::warpgroup_commit_batch();
    if constexpr (kWait0) cute::warpgroup_wait<0>();
    else cute::warpgroup_wait<1>();
    if constexpr (kRing) {
      if (kWait0 && releaser) mbar_arrive(bars + 8 * (kStages + s));
      if (!kWait0 && releaser && it > 0) mbar_arrive(bars + 8 * (kStages + (it + kStages - 1) % kStages));
    }
  }
  cute::warpgroup_wait<0>();
  if (kRing && !kWait0 && releaser && iters > 0) mbar_arrive(bars + 8 * (kStages + (iters - 1) % kStages));
#pragma unroll
  for (int i = 0; i < 128; ++i) cute::warpgroup_fence_operand(acc[i]);
  const long long t1 = clock64();
  float s = 0.f;
#pragma unroll
  for (int i = 0; i < 128; ++i) s += acc[i];
  if (s == 12345.f) sink[threadIdx.x] = s;  // keep the MMAs alive
  if (threadIdx.x == 128 && blockIdx.x == 0) *cycles = t1 - t0;
}

template <bool kAMN, bool kBMN, bool kWait0, bool kFence = false, bool kRing = false, bool kArrive128 = false,
          bool kRotate = false, bool kTile16 = false>
void run(const char* name, int sms, float* sink, long long* d_cycles) {
  auto k = wgmma_loop<kAMN, kBMN, kWait0, kFence, kRing, kArrive128, kRotate, kTile16>;
  const int smem = (kRotate ? 3 : 1) * 48 * 1024 + 1024 + 64;
  CHECK(cudaFuncSetAttribute(k, cudaFuncAttributeMaxDynamicSharedMemorySize, smem));
  const int iters = 20000;
  k<<<sms, 384, smem>>>(iters / 10, sink, d_cycles);  // warm-up
  CHECK(cudaGetLastError());
  cudaEvent_t e0, e1;
  CHECK(cudaEventCreate(&e0));
  CHECK(cudaEventCreate(&e1));
  std::vector<float> ms;
  long long cyc = 0;
  for (int r = 0; r < 5; ++r) {
    CHECK(cudaEventRecord(e0));
    k<<<sms, 384, smem>>>(iters, sink, d_cycles);
    CHECK(cudaEventRecord(e1));
    CHECK(cudaEventSynchronize(e1));
    float t = 0.f;
    CHECK(cudaEventElapsedTime(&t, e0, e1));
    ms.push_back(t);
  }
  CHECK(cudaMemcpy(&cyc, d_cycles, sizeof(cyc), cudaMemcpyDeviceToHost));
  std::sort(ms.begin(), ms.end());
  const double flops = static_cast<double>(sms) * 2 /*warpgroups*/ * iters * 4 * 2.0 * 64 * 256 * 16;
  const double t = ms[ms.size() / 2];
  std::printf("| %s | %.3f | %.0f | %.0f | %.2f |\n", name, t, flops / t / 1e9,
              static_cast<double>(cyc) / iters, static_cast<double>(cyc) / (t * 1e-3) / 1e9);
  CHECK(cudaEventDestroy(e0));
  CHECK(cudaEventDestroy(e1));
}

int main() {
  int dev = 0, sms = 0;
  CHECK(cudaGetDevice(&dev));
  CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
  cudaDeviceProp prop{};
  CHECK(cudaGetDeviceProperties(&prop, dev));
  float* sink = nullptr;
  long long* cycles = nullptr;
  CHECK(cudaMalloc(&sink, 384 * sizeof(float)));
  CHECK(cudaMalloc(&cycles, sizeof(long long)));
  std::printf("%s, %d SMs; wgmma m64n256k16 bf16, 2 warpgroups a CTA, 4 k16 steps a commit\n", prop.name, sms);
  std::printf("| A, B majors (wait) | ms | TFLOP/s | cycles per step (ideal 1024) | GHz (clock64 / time) |\n|---|---|---|---|---|\n");
  run<false, false, false>("K, K (wait 1)", sms, sink, cycles);
  run<false, true, false>("K, MN (wait 1: dH, dX)", sms, sink, cycles);
  run<true, true, false>("MN, MN (wait 1: weight gradients)", sms, sink, cycles);
  run<false, false, true>("K, K (wait 0)", sms, sink, cycles);
  run<true, true, true>("MN, MN (wait 0: weight gradients' default)", sms, sink, cycles);
  run<true, true, true, true>("MN, MN (wait 0) + proxy fence", sms, sink, cycles);
  run<true, true, true, false, true>("MN, MN (wait 0) + 3-stage ring", sms, sink, cycles);
  run<true, true, true, true, true>("MN, MN (wait 0) + fence + ring", sms, sink, cycles);
  run<true, true, false, true, true>("MN, MN (wait 1) + fence + ring", sms, sink, cycles);
  run<false, true, true, true, true>("K, MN (wait 0) + fence + ring: dH", sms, sink, cycles);
  run<false, false, false, false, true>("K, K (wait 1) + ring", sms, sink, cycles);
  // Session 7: the weight-gradient kernel's MMA-only form, one ingredient at a time (wait 0, fence, ring).
  run<true, true, true, true, true, true>("MN, MN + fence + ring, 128 cp.async arrivals", sms, sink, cycles);
  run<true, true, true, true, true, false, true>("MN, MN + fence + ring, stages rotate", sms, sink, cycles);
  run<true, true, true, true, true, false, false, true>("MN, MN + fence + ring, 16-step tiles", sms, sink, cycles);
  run<true, true, true, true, true, true, true, true>("MN, MN + fence + ring + all three", sms, sink, cycles);
  run<true, true, false, true, true, true, true, true>("MN, MN (wait 1) + fence + ring + all three", sms, sink, cycles);
  run<false, false, false, false, true, true, true, true>("K, K (wait 1) + ring + all three: GEMM 1", sms, sink, cycles);
  CHECK(cudaFree(sink));
  CHECK(cudaFree(cycles));
  return 0;
}
