// Links the compile-test objects (device/compile/*.cu) into a program: every host/device name's host
// path is a call of an exported libgpushmem symbol under an asm label, and a label that names no symbol
// fails this link. Also compiles <pshmem.h> in a CUDA file and links a few of its profiling entry points
// (every p-name is checked by conformance.spec_surface). Built, never run.
#include <pshmem.h>

int main(int argc, char **) {
  if (argc > 1000) {  // never true: the calls exist to be linked
    pshmem_init();
    pshmem_int_p(static_cast<int *>(pshmem_malloc(sizeof(int))), 1, pshmem_my_pe());
    pshmem_sync(0, 0, pshmem_n_pes(), nullptr);
    pshmem_finalize();
  }
  return 0;
}
