/* Deprecated location of the OpenSHMEM header, still installed because the specification lists it. */
#include <shmem.h>
