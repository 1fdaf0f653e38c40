// The sticky device error's host side (gpushmem/device_error.h; device_error.cpp says when it is reported).
#pragma once

#include "core/status.hpp"

namespace gpushmem::gpu {

struct Session;

// init / finalize, in the session's context.
Status create_device_error(const char *call, Session &s);
void free_device_error(Session &s);
// Logs the device's error record once, if a device call failed; `where` says who noticed ("at shmem_finalize").
// True if there is one (reported now or before). Any thread.
bool report_device_error(const char *where);

}  // namespace gpushmem::gpu
