// Thin PTX wrappers for sm_90a: mbarriers, cp.async (16-byte, zero-fill), TMA tile loads, fences,
// stmatrix and shared->global bulk copies (staged epilogue).
#pragma once
#include <cstdint>
#include <cuda.h>
#include <cuda_runtime.h>
#include <cuda_bf16.h>

namespace pk::sm90 {

__device__ __forceinline__ uint32_t smem_u32(const void* p) {
  return static_cast<uint32_t>(__cvta_generic_to_shared(p));
}

__device__ __forceinline__ void mbar_init(uint64_t* bar, uint32_t count) {
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(smem_u32(bar)), "r"(count) : "memory");
}

__device__ __forceinline__ void fence_barrier_init() {
  asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
}

// Blocks until the phase with the given parity has completed.
__device__ __forceinline__ void mbar_wait(uint64_t* bar, uint32_t parity) {
  const uint32_t addr = smem_u32(bar);
  asm volatile(
      "{\n"
      ".reg .pred p;\n"
      "WAIT_%=:\n"
      "mbarrier.try_wait.parity.shared::cta.b64 p, [%0], %1, 10000000;\n"
      "@!p bra WAIT_%=;\n"
      "}\n" ::"r"(addr),
      "r"(parity)
      : "memory");
}

__device__ __forceinline__ void mbar_arrive(uint64_t* bar) {
  asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];" ::"r"(smem_u32(bar)) : "memory");
}

__device__ __forceinline__ void mbar_arrive_expect_tx(uint64_t* bar, uint32_t bytes) {
  asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(smem_u32(bar)), "r"(bytes)
               : "memory");
}

// Arrives on `bar` once all earlier cp.async of this thread have landed (count pre-set at init).
__device__ __forceinline__ void cp_async_mbar_arrive_noinc(uint64_t* bar) {
  asm volatile("cp.async.mbarrier.arrive.noinc.shared::cta.b64 [%0];" ::"r"(smem_u32(bar)) : "memory");
}

// 16-byte global->shared copy (every gather: m-grouped and k-grouped); src_bytes = 0 writes zeros and reads nothing.
__device__ __forceinline__ void cp_async_16(uint32_t dst, const void* src, uint32_t src_bytes) {
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;" ::"r"(dst), "l"(src), "r"(src_bytes) : "memory");
}

__device__ __forceinline__ void fence_proxy_async_smem() {
  asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
}

// 3-D TMA tile load into shared memory, completing on `bar` (transaction bytes).
__device__ __forceinline__ void tma_load_3d(uint32_t dst, const CUtensorMap* map, uint64_t* bar, int c0,
                                            int c1, int c2) {
  asm volatile(
      "cp.async.bulk.tensor.3d.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1, {%3, %4, %5}], [%2];" ::"r"(
          dst),
      "l"(reinterpret_cast<uint64_t>(map)), "r"(smem_u32(bar)), "r"(c0), "r"(c1), "r"(c2)
      : "memory");
}

// The same, multicast: the box lands at offset `dst` of every CTA in `cta_mask` (cluster ranks) and
// completes transaction bytes on the mbarrier at the same offset in each of them.
__device__ __forceinline__ void tma_load_3d_mc(uint32_t dst, const CUtensorMap* map, uint64_t* bar, int c0,
                                               int c1, int c2, uint16_t cta_mask) {
  asm volatile(
      "cp.async.bulk.tensor.3d.shared::cluster.global.mbarrier::complete_tx::bytes.multicast::cluster"
      " [%0], [%1, {%3, %4, %5}], [%2], %6;" ::"r"(dst),
      "l"(reinterpret_cast<uint64_t>(map)), "r"(smem_u32(bar)), "r"(c0), "r"(c1), "r"(c2), "h"(cta_mask)
      : "memory");
}

__device__ __forceinline__ void prefetch_tma_map(const CUtensorMap* map) {
  asm volatile("prefetch.tensormap [%0];" ::"l"(reinterpret_cast<uint64_t>(map)) : "memory");
}

// gridDim.x read at the point of use (asm volatile: not hoisted into a register across a loop).
__device__ __forceinline__ int grid_ctas() {
  uint32_t n;
  asm volatile("mov.u32 %0, %%nctaid.x;" : "=r"(n));
  return static_cast<int>(n);
}

template <uint32_t kRegs>
__device__ __forceinline__ void setmaxnreg_dec() {
  asm volatile("setmaxnreg.dec.sync.aligned.u32 %0;" ::"n"(kRegs));
}
template <uint32_t kRegs>
__device__ __forceinline__ void setmaxnreg_inc() {
  asm volatile("setmaxnreg.inc.sync.aligned.u32 %0;" ::"n"(kRegs));
}

// Named barrier among `count` threads (a multiple of 32).
__device__ __forceinline__ void named_bar_sync(uint32_t id, uint32_t count) {
  asm volatile("bar.sync %0, %1;" ::"r"(id), "r"(count) : "memory");
}

// ---- staged epilogue stores (registers -> shared -> global through the bulk copy engine) ----

// Four 8x8 b16 matrices to shared memory: lane i gives the address of row i%8 of matrix i/8; each
// thread's register q holds its (row lane/4, columns 2*(lane%4), +1) fragment of matrix q.
__device__ __forceinline__ void stmatrix_x4(uint32_t addr, uint32_t r0, uint32_t r1, uint32_t r2, uint32_t r3) {
  asm volatile("stmatrix.sync.aligned.m8n8.x4.shared.b16 [%0], {%1, %2, %3, %4};" ::"r"(addr), "r"(r0), "r"(r1),
               "r"(r2), "r"(r3)
               : "memory");
}

// The same four matrices stored transposed: lane i gives the address of row i%8 of the transpose of
// matrix i/8, i.e. of column i%8 of the fragment layout above.
__device__ __forceinline__ void stmatrix_x4_trans(uint32_t addr, uint32_t r0, uint32_t r1, uint32_t r2, uint32_t r3) {
  asm volatile("stmatrix.sync.aligned.m8n8.x4.trans.shared.b16 [%0], {%1, %2, %3, %4};" ::"r"(addr), "r"(r0),
               "r"(r1), "r"(r2), "r"(r3)
               : "memory");
}

__device__ __forceinline__ uint32_t pack_bf16x2(float lo, float hi) {
  const __nv_bfloat162 v = __floats2bfloat162_rn(lo, hi);
  return *reinterpret_cast<const uint32_t*>(&v);
}
__device__ __forceinline__ float2 unpack_bf16x2(uint32_t v) {
  return __bfloat1622float2(*reinterpret_cast<const __nv_bfloat162*>(&v));
}

// Bulk copy (async proxy) of `bytes` (multiple of 16, both addresses 16-byte aligned) from shared
// to global memory, tracked by this thread's bulk async-groups.
__device__ __forceinline__ void bulk_store_s2g(void* gdst, uint32_t ssrc, uint32_t bytes) {
  asm volatile("cp.async.bulk.global.shared::cta.bulk_group [%0], [%1], %2;" ::"l"(gdst), "r"(ssrc), "r"(bytes)
               : "memory");
}
// Bulk element-wise fp32 add of `bytes` from shared into global memory (the reduction is done at
// L2, no read back here), tracked by this thread's bulk async-groups like bulk_store_s2g.
__device__ __forceinline__ void bulk_reduce_add_f32_s2g(float* gdst, uint32_t ssrc, uint32_t bytes) {
  asm volatile("cp.reduce.async.bulk.global.shared::cta.bulk_group.add.f32 [%0], [%1], %2;" ::"l"(gdst), "r"(ssrc),
               "r"(bytes)
               : "memory");
}
// 2-D TMA tensor store of one box from shared memory (the map's box and swizzle), tracked by this
// thread's bulk async-groups like bulk_store_s2g.
__device__ __forceinline__ void tma_store_2d(const CUtensorMap* map, uint32_t src, int col, int row) {
  asm volatile("cp.async.bulk.tensor.2d.global.shared::cta.bulk_group [%0, {%1, %2}], [%3];"
               ::"l"(reinterpret_cast<uint64_t>(map)), "r"(col), "r"(row), "r"(src)
               : "memory");
}
// The same, adding the box into global memory (fp32 add at L2) instead of overwriting it.
__device__ __forceinline__ void tma_reduce_add_2d(const CUtensorMap* map, uint32_t src, int col, int row) {
  asm volatile("cp.reduce.async.bulk.tensor.2d.global.shared::cta.add.tile.bulk_group [%0, {%1, %2}], [%3];"
               ::"l"(reinterpret_cast<uint64_t>(map)), "r"(col), "r"(row), "r"(src)
               : "memory");
}
// 16 bytes from shared memory (LDS.128). Through a generic pointer the same read is an LD.E.128 with its
// 64-bit address math, and ptxas let it share the scoreboard of the warp's global loads (session 23).
// volatile: it must stay after the mbarrier wait that publishes the data.
__device__ __forceinline__ uint4 ld_shared_v4(uint32_t addr) {
  uint4 v;
  asm volatile("ld.shared.v4.b32 {%0, %1, %2, %3}, [%4];" : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w) : "r"(addr));
  return v;
}
// Fetch the 128-byte line holding `g` into L1 (nothing waits for it: no register, no scoreboard).
__device__ __forceinline__ void prefetch_l1(const void* g) {
  asm volatile("prefetch.global.L1 [%0];" ::"l"(g));
}
__device__ __forceinline__ void bulk_commit() { asm volatile("cp.async.bulk.commit_group;" ::: "memory"); }
// This thread's committed bulk groups have finished READING their shared-memory source.
__device__ __forceinline__ void bulk_wait_read_all() {
  asm volatile("cp.async.bulk.wait_group.read 0;" ::: "memory");
}
// All but the last `left` (0 or 1) committed ones have finished reading theirs (1: a buffer used in alternation).
__device__ __forceinline__ void bulk_wait_read(int left) {
  if (left == 1) asm volatile("cp.async.bulk.wait_group.read 1;" ::: "memory");
  else bulk_wait_read_all();
}
// ... and have fully completed (writes performed).
__device__ __forceinline__ void bulk_wait_all() { asm volatile("cp.async.bulk.wait_group 0;" ::: "memory"); }

// exp(-g) as one FMUL and one MUFU.EX2 (ex2.approx.ftz). `__expf` without -use_fast_math compiles
// to the non-ftz ex2, which adds a range test and two predicated FMULs per element for results below
// 2^-126 (g > 87.3); those only ever meet `1 + exp(-g)`, where the flushed 0 gives the same 1.0f, so
// every sigmoid below is bit-identical to the `__expf` form (session 7: -3 of ~41 SASS instructions an
// element in the dH epilogue warps). The constant is the float `__expf` multiplies by.
__device__ __forceinline__ float exp_neg_f(float g) {
  float r;
  asm("ex2.approx.ftz.f32 %0, %1;" : "=f"(r) : "f"(g * -1.4426950408889634f));
  return r;
}

// sigmoid(g) with the approximate reciprocal (one MUFU.RCP): the IEEE division a plain `1.0f / x`
// compiles to (no -use_fast_math) is a ~10-instruction sequence with a slow-path call, once per
// output element of the SwiGLU epilogue; the results are rounded to bf16 anyway. exp(-g) = inf
// (g < -88) gives rcp(inf) = 0.
__device__ __forceinline__ float sigmoid_f(float g) {
  float r;
  asm("rcp.approx.ftz.f32 %0, %1;" : "=f"(r) : "f"(1.0f + exp_neg_f(g)));
  return r;
}
// The forward SwiGLU (GEMM 1's epilogue): 30B GEMM 1 1.39-1.40 vs 1.44 ms with the IEEE division
// (interleaved, results/session3/run5_sig_*.log). The dH epilogue keeps the division: there the fast
// form measured slower (ping-pong 235B 4.5 vs 4.0 ms; ptxas schedules it differently).
__device__ __forceinline__ float silu_f(float g) { return g * sigmoid_f(g); }

}  // namespace pk::sm90
