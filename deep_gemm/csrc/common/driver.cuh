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

}  // namespace pk
