// Library-wide entry points: identity, error message, device queries.
#include <string>
#include "error.cuh"
#include "driver.cuh"

#ifndef PK_ARCH
#error "PK_ARCH must be defined by the build (90 or 100)"
#endif

namespace pk {
static thread_local std::string g_last_error;
void set_last_error(const std::string& msg) { g_last_error = msg; }
}  // namespace pk

// Bumped whenever an exported signature changes; Python refuses a library with another value.
PK_EXPORT int pk_abi_version() { return 1; }
PK_EXPORT int pk_library_arch() { return PK_ARCH; }
PK_EXPORT const char* pk_last_error() { return pk::g_last_error.c_str(); }
PK_EXPORT int pk_cuda_runtime_version() { return CUDART_VERSION; }

// Checks that the driver is reachable without linking libcuda (cuDriverGetVersion via the runtime).
PK_EXPORT int pk_driver_version(int* out) {
  return pk::guarded("pk_driver_version", [&] {
    using Fn = CUresult (*)(int*);
    auto fn = reinterpret_cast<Fn>(pk::driver_entry_point("cuDriverGetVersion", 2020));
    if (fn(out) != CUDA_SUCCESS) pk::fail(pk::kCudaError, "cuDriverGetVersion failed");
  });
}
