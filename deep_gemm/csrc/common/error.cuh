// Error reporting across the C ABI: every exported entry point returns an int status
// (0 = success) and leaves a message for pk_last_error(); no exception crosses the boundary.
#pragma once
#include <cuda_runtime.h>
#include <cstdarg>
#include <cstdio>
#include <stdexcept>
#include <string>

#define PK_EXPORT extern "C" __attribute__((visibility("default")))

namespace pk {

enum Status : int { kOk = 0, kInvalidArgument = 1, kCudaError = 2, kNotSupported = 3, kInternal = 4 };

struct Error : std::runtime_error {
  int status;
  Error(int s, const std::string& msg) : std::runtime_error(msg), status(s) {}
};

void set_last_error(const std::string& msg);

[[noreturn]] inline void fail(int status, const char* fmt, ...) {
  char buf[1024];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(buf, sizeof(buf), fmt, ap);
  va_end(ap);
  throw Error(status, buf);
}

// Runs an entry point body, converting exceptions into a status code + message.
template <typename F>
int guarded(const char* name, F&& body) {
  try {
    body();
    return kOk;
  } catch (const Error& e) {
    set_last_error(std::string(name) + ": " + e.what());
    return e.status;
  } catch (const std::exception& e) {
    set_last_error(std::string(name) + ": " + e.what());
    return kInternal;
  }
}

}  // namespace pk

#define PK_CUDA_CHECK(expr)                                                                \
  do {                                                                                     \
    cudaError_t pk_err_ = (expr);                                                          \
    if (pk_err_ != cudaSuccess)                                                            \
      ::pk::fail(::pk::kCudaError, "%s failed at %s:%d: %s", #expr, __FILE__, __LINE__,    \
                 cudaGetErrorString(pk_err_));                                             \
  } while (0)

// After a launch: catches bad configurations (the launch itself is asynchronous).
#define PK_CHECK_LAUNCH() PK_CUDA_CHECK(cudaGetLastError())

#define PK_REQUIRE(cond, ...)                                                              \
  do {                                                                                     \
    if (!(cond)) ::pk::fail(::pk::kInvalidArgument, __VA_ARGS__);                          \
  } while (0)
