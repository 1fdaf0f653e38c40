/* Deprecated location of the OpenSHMEM extensions header, still installed because the specification lists it. */
#include <shmemx.h>
