// Exits 0 when this process can use a CUDA GPU, 77 (ctest: skipped) when it cannot, saying why. Run by
// gpu_launch.sh before every GPU test, so a machine without a GPU skips the test instead of failing it.
#include <cuda_runtime.h>

#include <cstdio>

int main() {
  int count = 0;
  const cudaError_t err = cudaGetDeviceCount(&count);
  if (err != cudaSuccess || count == 0) {
    std::fprintf(stderr, "gpu_probe: SKIP: no usable CUDA GPU (cudaGetDeviceCount: %s, %d device(s))\n",
                 err != cudaSuccess ? cudaGetErrorString(err) : "no error", count);
    return 77;
  }
  return 0;
}
