// The two CUDA files of the two-file test: each has its own kernel using shmem_int_p and its own copy of
// the device state (no -rdc: nothing links their device code together).
#pragma once

#include "gpushmem/device_state.h"

// Launches the file's kernel (shmem_int_p(dest, value, pe), then quiet) and waits: a cudaError_t.
int two_tu_a_put(int *dest, int value, int pe);
int two_tu_b_put(int *dest, int value, int pe);
// Copies the file's __constant__ device state into *out: a cudaError_t.
int two_tu_a_state(gpushmem_device_state_t *out);
int two_tu_b_state(gpushmem_device_state_t *out);
