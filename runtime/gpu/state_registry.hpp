// The device-state updaters every CUDA translation unit that includes <shmem.h> registers
// (gpushmemi_register_device_state, include/gpushmem/device_state.h), and the state they were last given.
// CUDA-free: registrations arrive from static initialisers whether or not a GPU is ever used.
#pragma once

#include "gpushmem/device_state.h"

namespace gpushmem::gpu {

// Records `state` as current and hands it to every registered updater, in this PE's CUDA context. Called at
// shmem_init and after every change (heap growth). Thread safe.
void publish(const gpushmem_device_state_t &state);
// No state any more (shmem_finalize): later registrations are only recorded.
void retract();
// How many of the application's CUDA files include <shmem.h> (library files not counted).
size_t application_registrations();

}  // namespace gpushmem::gpu
