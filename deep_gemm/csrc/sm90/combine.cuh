// Token-side reductions after the grouped GEMMs, deterministic (fixed order over the top-k slots):
//   y[t, :]  = sum_k w[t,k] * rows[pair_to_sorted[t*K+k], :]   (forward combine; w = null: plain sum,
//                                                              the backward's dx gather-sum)
//   dw[t, k] = sum_j part[pair_to_sorted[t*K+k], j]            (routing-weight gradient, optional)
// One CTA of 128 threads per token; each thread owns 8 consecutive columns (16-byte loads).
#pragma once
#include <cstdint>
#include <cuda_bf16.h>

namespace pk::sm90 {

constexpr int kCombineThreads = 128;

__global__ void __launch_bounds__(kCombineThreads)
token_combine_kernel(const __nv_bfloat16* __restrict__ rows, int hidden, int topk,
                     const int* __restrict__ pair_to_sorted, const float* __restrict__ weights,
                     __nv_bfloat16* __restrict__ out, const float* __restrict__ part, int num_parts,
                     float* __restrict__ dweights) {
  const int64_t t = blockIdx.x;
  __shared__ int pos[64];
  __shared__ float wk[64];
  for (int k = threadIdx.x; k < topk; k += blockDim.x) {
    pos[k] = pair_to_sorted[t * topk + k];
    wk[k] = weights ? weights[t * topk + k] : 1.0f;
  }
  __syncthreads();
  if (dweights != nullptr) {
    // one warp per slot
    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    for (int k = warp; k < topk; k += blockDim.x / 32) {
      float s = 0.f;
      if (pos[k] >= 0)
        for (int j = lane; j < num_parts; j += 32) s += part[(int64_t)pos[k] * num_parts + j];
#pragma unroll
      for (int d = 16; d > 0; d >>= 1) s += __shfl_xor_sync(0xffffffffu, s, d);
      if (lane == 0) dweights[t * topk + k] = s;
    }
  }
  for (int col = threadIdx.x * 8; col < hidden; col += blockDim.x * 8) {
    float acc[8];
#pragma unroll
    for (int i = 0; i < 8; ++i) acc[i] = 0.f;
    for (int k = 0; k < topk; ++k) {
      const int p = pos[k];
      if (p < 0) continue;
      const uint4 v = __ldg(reinterpret_cast<const uint4*>(rows + (int64_t)p * hidden + col));
      const __nv_bfloat162* b = reinterpret_cast<const __nv_bfloat162*>(&v);
      const float w = wk[k];
#pragma unroll
      for (int i = 0; i < 4; ++i) {
        const float2 f = __bfloat1622float2(b[i]);
        acc[2 * i] += w * f.x;
        acc[2 * i + 1] += w * f.y;
      }
    }
    uint4 o;
    __nv_bfloat162* ob = reinterpret_cast<__nv_bfloat162*>(&o);
#pragma unroll
    for (int i = 0; i < 4; ++i) ob[i] = __floats2bfloat162_rn(acc[2 * i], acc[2 * i + 1]);
    *reinterpret_cast<uint4*>(out + t * hidden + col) = o;
  }
}

}  // namespace pk::sm90
