// The call stack of another thread of this process, written to stderr: what the watchdog adds when it finds the
// proxy thread stuck inside a request or inside the network's progress, so the report says where it waits (a CUDA
// stream sync, a UCX progress call, a lock) and not only that it waits.
//
// The thread is asked with a signal (SIGURG, ignored by default and otherwise unused by gpushmem): its handler
// walks its own stack with glibc's backtrace() and writes one line a frame ("lib(+offset)[address]"; addr2line -f -C
// -e lib offset names the function). The handler is installed once, on first use, and passes the signal on to a
// handler installed before it when it arrives at another thread.
#pragma once

#include <pthread.h>

namespace gpushmem::proxy {

// Called by the thread that may be asked later (the proxy thread, at start): loads what backtrace() needs, which a
// signal handler must not do itself.
void prepare_stack_report();

// Makes `thread` write `title`, then its stack, to stderr; returns whether it did within a second (it cannot while
// it is blocked with signals masked, or if it was never prepared).
bool report_thread_stack(pthread_t thread, const char *title);

}  // namespace gpushmem::proxy
