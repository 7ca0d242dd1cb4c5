// Driver API access without linking libcuda: entry points are resolved through the runtime,
// so the library needs only libstdc++/libc at load time.
#pragma once
#include <cuda.h>
#include <cuda_runtime.h>
#include "error.cuh"

namespace pk {

// Returns the driver function `name` (introduced in driver API version `cuda_version`, e.g. 12000).
inline void* driver_entry_point(const char* name, int cuda_version = 12000) {
  void* fn = nullptr;
  cudaDriverEntryPointQueryResult q{};
  PK_CUDA_CHECK(cudaGetDriverEntryPointByVersion(name, &fn, cuda_version, cudaEnableDefault, &q));
  if (q != cudaDriverEntryPointSuccess || fn == nullptr)
    fail(kCudaError, "driver entry point %s (version %d) not available", name, cuda_version);
  return fn;
}

// An attribute of the calling thread's current device (cudaDevAttr...).
inline int current_device_attribute(cudaDeviceAttr attr) {
  int dev = 0, value = 0;
  PK_CUDA_CHECK(cudaGetDevice(&dev));
  PK_CUDA_CHECK(cudaDeviceGetAttribute(&value, attr, dev));
  return value;
}

// Driver calls act on the calling thread's current context, and a thread may have none although torch
// calls the device current: torch's device guard skips cudaSetDevice when the device does not change, so a
// thread whose only CUDA work went through it (the autograd engine's device thread, a fresh Python thread)
// has no context bound until its first runtime call. cuTensorMapEncodeTiled then fails with
// CUDA_ERROR_INVALID_CONTEXT. Bind the current device's primary context, as the runtime would.
inline void bind_device_context() {
  using GetCurrent = CUresult (*)(CUcontext*);
  static GetCurrent get_current = reinterpret_cast<GetCurrent>(driver_entry_point("cuCtxGetCurrent", 4000));
  CUcontext ctx = nullptr;
  if (get_current(&ctx) == CUDA_SUCCESS && ctx != nullptr) return;
  int dev = 0;
  PK_CUDA_CHECK(cudaGetDevice(&dev));
  PK_CUDA_CHECK(cudaSetDevice(dev));  // makes the device's primary context current on this thread
}

// cuTensorMapEncodeTiled (through the entry point) for a tensor of `rank` dimensions, innermost first:
// dims in elements, strides_bytes for dimensions 1..rank-1, box in elements; every element stride 1,
// no interleave, out-of-bounds elements read as zeros. Fails with the dimensions in the message.
inline CUtensorMap encode_tensor_map(CUtensorMapDataType dtype, cuuint32_t rank, const void* base,
                                     const cuuint64_t* dims, const cuuint64_t* strides_bytes, const cuuint32_t* box,
                                     CUtensorMapSwizzle swizzle, CUtensorMapL2promotion l2) {
  using Encode = CUresult (*)(CUtensorMap*, CUtensorMapDataType, cuuint32_t, void*, const cuuint64_t*,
                              const cuuint64_t*, const cuuint32_t*, const cuuint32_t*, CUtensorMapInterleave,
                              CUtensorMapSwizzle, CUtensorMapL2promotion, CUtensorMapFloatOOBfill);
  static Encode encode = reinterpret_cast<Encode>(driver_entry_point("cuTensorMapEncodeTiled", 12000));
  bind_device_context();
  const cuuint32_t elem[3] = {1, 1, 1};
  CUtensorMap map{};
  const CUresult r = encode(&map, dtype, rank, const_cast<void*>(base), dims, strides_bytes, box, elem,
                            CU_TENSOR_MAP_INTERLEAVE_NONE, swizzle, l2, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
  if (r != CUDA_SUCCESS)
    fail(kCudaError, "cuTensorMapEncodeTiled failed (%d) for dims {%llu, %llu, %llu} box {%u, %u}", (int)r,
         (unsigned long long)dims[0], (unsigned long long)dims[1], (unsigned long long)(rank > 2 ? dims[2] : 1),
         box[0], box[1]);
  return map;
}

}  // namespace pk
